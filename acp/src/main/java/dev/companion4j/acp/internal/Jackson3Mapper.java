package dev.companion4j.acp.internal;

import com.agentclientprotocol.sdk.json.AcpJsonMapper;
import com.agentclientprotocol.sdk.json.TypeRef;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * The SDK's JSON on the project's Jackson 3, so the SDK's Jackson 2 default mapper (which {@code
 * AcpJsonMapper.createDefault()} would look up) is neither needed nor shipped.
 */
public final class Jackson3Mapper implements AcpJsonMapper {
  /** Lenient: agents add fields the SDK's records do not know. */
  public static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private JavaType type(TypeRef<?> ref) {
    return JSON.getTypeFactory().constructType(ref.getType());
  }

  @Override
  public <T> T readValue(String content, Class<T> type) {
    return JSON.readValue(content, type);
  }

  @Override
  public <T> T readValue(byte[] content, Class<T> type) {
    return JSON.readValue(content, type);
  }

  @Override
  public <T> T readValue(String content, TypeRef<T> type) {
    return JSON.readValue(content, type(type));
  }

  @Override
  public <T> T readValue(byte[] content, TypeRef<T> type) {
    return JSON.readValue(content, type(type));
  }

  @Override
  public <T> T convertValue(Object from, Class<T> type) {
    return JSON.convertValue(from, type);
  }

  @Override
  public <T> T convertValue(Object from, TypeRef<T> type) {
    return JSON.convertValue(from, type(type));
  }

  @Override
  public String writeValueAsString(Object value) {
    return JSON.writeValueAsString(value);
  }

  @Override
  public byte[] writeValueAsBytes(Object value) {
    return JSON.writeValueAsBytes(value);
  }
}
