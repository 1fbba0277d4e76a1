package dev.companion4j.daemon.internal;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The rules a daemon address and token must meet before any request is made.
 *
 * <p>A token travels only in the {@code Authorization} header, so a URL with credentials in it is
 * refused (and not echoed back in the error). A daemon off this machine is reachable by others, so
 * it needs a token. Host names other than {@code localhost} are not resolved to decide loopback: a
 * name that resolves to 127.0.0.1 today may not tomorrow.
 */
public final class UrlPolicy {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]{1,4096}");
  private static final Pattern CLIENT_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  private UrlPolicy() {}

  /** Checks the address and returns it without a trailing slash. */
  public static URI checkBaseUrl(String url, boolean hasToken) {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("daemon URL is required, e.g. http://127.0.0.1:4170");
    }
    if (!url.contains("://")) {
      throw new IllegalArgumentException(
          "daemon URL must start with http:// or https://, e.g. " + "http://127.0.0.1:4170");
    }
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("daemon URL is not a valid URL: " + e.getReason());
    }
    if (uri.getRawUserInfo() != null
        || (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@"))) {
      throw new IllegalArgumentException(
          "daemon URL must not contain credentials; pass the token separately (it is sent as a"
              + " bearer header)");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(
          "daemon URL must start with http:// or https://, got '" + url.trim() + "'");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("daemon URL has no host: '" + url.trim() + "'");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException("daemon URL must not have a query or fragment");
    }
    if (!hasToken && !isLoopback(uri.getHost())) {
      throw new IllegalArgumentException(
          "daemon at "
              + uri.getHost()
              + " is not on this machine; a token is required (qwen serve requires one off"
              + " loopback)");
    }
    String text = uri.toString();
    while (text.endsWith("/")) {
      text = text.substring(0, text.length() - 1);
    }
    return URI.create(text);
  }

  /** Whether a URL host is a loopback address, judged without DNS. */
  public static boolean isLoopback(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.equals("localhost")) {
      return true;
    }
    if (!IPV4.matcher(h).matches() && !h.contains(":")) {
      return false;
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** Checks a bearer token without ever putting it in the message. */
  public static String checkToken(String token) {
    if (token == null) {
      return null;
    }
    String t = token.trim();
    if (!TOKEN.matcher(t).matches()) {
      throw new IllegalArgumentException(
          "token must be 1 to 4096 printable ASCII characters without spaces");
    }
    return t;
  }

  /** Checks a client id the way the daemon does ({@code X-Qwen-Client-Id}). */
  public static String checkClientId(String clientId) {
    if (clientId != null && !CLIENT_ID.matcher(clientId).matches()) {
      throw new IllegalArgumentException(
          "client id must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', ':' or '-'");
    }
    return clientId;
  }
}
