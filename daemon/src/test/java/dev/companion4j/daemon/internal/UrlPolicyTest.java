package dev.companion4j.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.daemon.DaemonClient;
import org.junit.jupiter.api.Test;

class UrlPolicyTest {

  @Test
  void acceptsLoopbackWithoutAToken() {
    assertThat(UrlPolicy.checkBaseUrl("http://127.0.0.1:4170/", false))
        .hasToString("http://127.0.0.1:4170");
    assertThat(UrlPolicy.checkBaseUrl("http://localhost:4170", false))
        .hasToString("http://localhost:4170");
    assertThat(UrlPolicy.checkBaseUrl("http://[::1]:4170", false)).hasToString("http://[::1]:4170");
    assertThat(UrlPolicy.checkBaseUrl("http://127.8.9.10:1", false))
        .hasToString("http://127.8.9.10:1");
  }

  @Test
  void refusesCredentialsInTheUrlWithoutRepeatingThem() {
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("http://alice:s3cret@127.0.0.1:4170", true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("credentials")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("http://tok3n@daemon.example:4170", true))
        .hasMessageContaining("credentials")
        .hasMessageNotContaining("tok3n");
  }

  @Test
  void refusesARemoteDaemonWithoutAToken() {
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("http://10.0.0.5:4170", false))
        .hasMessageContaining("token is required");
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("http://127.0.0.1.nip.example:4170", false))
        .as("a name is not resolved to decide loopback")
        .hasMessageContaining("token is required");
    assertThat(UrlPolicy.checkBaseUrl("https://daemon.example:4170", true))
        .hasToString("https://daemon.example:4170");
  }

  @Test
  void explainsMalformedUrls() {
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("ftp://127.0.0.1", false))
        .hasMessageContaining("http://");
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("127.0.0.1:4170", false))
        .hasMessageContaining("http://");
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl("http://127.0.0.1:4170/?x=1", false))
        .hasMessageContaining("query");
    assertThatThrownBy(() -> UrlPolicy.checkBaseUrl(" ", false)).hasMessageContaining("required");
  }

  @Test
  void checksTokensAndClientIdsWithoutEchoingThem() {
    assertThatThrownBy(() -> UrlPolicy.checkToken("two words"))
        .hasMessageContaining("printable")
        .hasMessageNotContaining("two words");
    assertThatThrownBy(() -> UrlPolicy.checkToken("line\r\nX-Injected: 1"))
        .hasMessageNotContaining("Injected");
    assertThat(UrlPolicy.checkClientId("ide-netbeans:1")).isEqualTo("ide-netbeans:1");
    assertThatThrownBy(() -> UrlPolicy.checkClientId("bad id")).hasMessageContaining("client id");
  }

  @Test
  void theClientNeverShowsItsToken() {
    try (DaemonClient client =
        DaemonClient.builder()
            .baseUrl("https://daemon.example:4170")
            .token("s3cret-t0ken")
            .build()) {
      assertThat(client.toString()).doesNotContain("s3cret-t0ken").contains("token set");
    }
    try (DaemonClient client = DaemonClient.builder().build()) {
      assertThat(client.baseUrl()).hasToString(DaemonClient.DEFAULT_URL);
      assertThat(client.toString()).contains("token none");
    }
  }
}
