package dev.companion4j.daemon;

import java.util.List;
import java.util.Set;

/**
 * What a daemon says about itself ({@code GET /capabilities}).
 *
 * @param version the protocol envelope version ({@code 1})
 * @param qwenCodeVersion the Qwen Code version serving, or {@code null} on older daemons
 * @param mode the daemon mode ({@code http-bridge}); informational, gate on {@link #features()}
 * @param features the feature tags the daemon advertises
 * @param workspaceCwd the daemon's primary workspace, a path on the daemon's host
 * @param modelServices model service ids the daemon offers
 */
public record Capabilities(
    int version,
    String qwenCodeVersion,
    String mode,
    Set<String> features,
    String workspaceCwd,
    List<String> modelServices) {

  public Capabilities {
    features = Set.copyOf(features);
    modelServices = List.copyOf(modelServices);
  }

  /** Whether the daemon advertises a feature tag, e.g. {@code session_set_model}. */
  public boolean supports(String feature) {
    return features.contains(feature);
  }
}
