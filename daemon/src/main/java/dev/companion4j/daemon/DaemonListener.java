package dev.companion4j.daemon;

import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.AgentThoughtChunk;
import dev.companion4j.daemon.DaemonEvent.ApprovalModeChanged;
import dev.companion4j.daemon.DaemonEvent.ModelSwitchFailed;
import dev.companion4j.daemon.DaemonEvent.ModelSwitched;
import dev.companion4j.daemon.DaemonEvent.PermissionRequested;
import dev.companion4j.daemon.DaemonEvent.PermissionResolved;
import dev.companion4j.daemon.DaemonEvent.Plan;
import dev.companion4j.daemon.DaemonEvent.ReplayComplete;
import dev.companion4j.daemon.DaemonEvent.ResyncRequired;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.StreamError;
import dev.companion4j.daemon.DaemonEvent.ToolCall;
import dev.companion4j.daemon.DaemonEvent.ToolCallUpdate;
import dev.companion4j.daemon.DaemonEvent.TurnComplete;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.DaemonEvent.Unknown;
import dev.companion4j.daemon.DaemonEvent.UserMessageChunk;
import org.slf4j.LoggerFactory;

/**
 * Where an IDE maps daemon events to its own UI, one callback per row of the adapter's event table.
 *
 * <p>Every typed callback defaults to {@link #onUnsupported}, so an integration implements what it
 * can render and sees everything else in one place, where it can show an honest "not supported
 * here" notice instead of pretending parity. Frames the client has no type for go to {@link
 * #onUnknown}, which by default only logs them at debug level.
 *
 * <p>Callbacks run on the session's single event thread, in stream order. A slow callback slows the
 * reading of the stream (it does not queue events in memory); the daemon then either waits or drops
 * the connection, and the client resumes from the last event it delivered.
 */
public interface DaemonListener {

  /** Entry point for every event; the default routes it to the typed callbacks. */
  default void onEvent(DaemonEvent event) {
    dispatch(event, this);
  }

  /** Assistant stream: a piece of the answer. */
  default void onAssistantText(AgentMessageChunk event) {
    onUnsupported(event);
  }

  /** Thinking stream: a piece of the model's reasoning. */
  default void onThinking(AgentThoughtChunk event) {
    onUnsupported(event);
  }

  /** The daemon's echo of a prompt, also from other clients attached to the session. */
  default void onUserMessage(UserMessageChunk event) {
    onUnsupported(event);
  }

  /** Tool-call UI: a call started. */
  default void onToolCall(ToolCall event) {
    onUnsupported(event);
  }

  /** Tool-call UI: a call progressed or finished. */
  default void onToolCallUpdate(ToolCallUpdate event) {
    onUnsupported(event);
  }

  /** The agent's plan changed. */
  default void onPlan(Plan event) {
    onUnsupported(event);
  }

  /** Approval UI: the agent waits for a decision. */
  default void onPermissionRequest(PermissionRequested event) {
    onUnsupported(event);
  }

  /** Approval UI: close or update the request, it was decided. */
  default void onPermissionResolved(PermissionResolved event) {
    onUnsupported(event);
  }

  /** Model state: the session switched model. */
  default void onModelSwitched(ModelSwitched event) {
    onUnsupported(event);
  }

  /** The session's approval mode changed. */
  default void onApprovalModeChanged(ApprovalModeChanged event) {
    onUnsupported(event);
  }

  /** A subscription's replay is over; what follows is live. */
  default void onReplayComplete(ReplayComplete event) {
    onUnsupported(event);
  }

  /** Model state: a switch was refused. */
  default void onModelSwitchFailed(ModelSwitchFailed event) {
    onUnsupported(event);
  }

  /** A turn ended (also when it was cancelled: see {@link TurnComplete#stopReason()}). */
  default void onTurnComplete(TurnComplete event) {
    onUnsupported(event);
  }

  /** A turn failed. */
  default void onTurnError(TurnError event) {
    onUnsupported(event);
  }

  /** Disconnect UI and offer to reconnect: the session is gone. */
  default void onSessionDied(SessionDied event) {
    onUnsupported(event);
  }

  /** The session was closed on purpose. */
  default void onSessionClosed(SessionClosed event) {
    onUnsupported(event);
  }

  /** The daemon's event source failed. */
  default void onStreamError(StreamError event) {
    onUnsupported(event);
  }

  /** Events were lost beyond the daemon's replay window; reload the session's state. */
  default void onResyncRequired(ResyncRequired event) {
    onUnsupported(event);
  }

  /** A typed event this integration does not render. */
  default void onUnsupported(DaemonEvent event) {
    LoggerFactory.getLogger(DaemonListener.class)
        .debug("daemon event not rendered: {}", event.getClass().getSimpleName());
  }

  /** A frame the client has no type for; ignored apart from a debug log by default. */
  default void onUnknown(Unknown event) {
    LoggerFactory.getLogger(DaemonListener.class).debug("unknown daemon event: {}", event.type());
  }

  /** The event connection dropped, resumed, gave up or closed. */
  default void onConnectionChanged(ConnectionStatus status) {}

  /** Routes an event to the callback for its type. */
  static void dispatch(DaemonEvent event, DaemonListener listener) {
    // The event-to-callback table; DaemonEvent.Visitor makes the compiler hold it whole.
    event.accept(
        new DaemonEvent.Visitor<Void>() {
          @Override
          public Void visit(AgentMessageChunk e) {
            listener.onAssistantText(e);
            return null;
          }

          @Override
          public Void visit(AgentThoughtChunk e) {
            listener.onThinking(e);
            return null;
          }

          @Override
          public Void visit(UserMessageChunk e) {
            listener.onUserMessage(e);
            return null;
          }

          @Override
          public Void visit(ToolCall e) {
            listener.onToolCall(e);
            return null;
          }

          @Override
          public Void visit(ToolCallUpdate e) {
            listener.onToolCallUpdate(e);
            return null;
          }

          @Override
          public Void visit(Plan e) {
            listener.onPlan(e);
            return null;
          }

          @Override
          public Void visit(PermissionRequested e) {
            listener.onPermissionRequest(e);
            return null;
          }

          @Override
          public Void visit(PermissionResolved e) {
            listener.onPermissionResolved(e);
            return null;
          }

          @Override
          public Void visit(ModelSwitched e) {
            listener.onModelSwitched(e);
            return null;
          }

          @Override
          public Void visit(ApprovalModeChanged e) {
            listener.onApprovalModeChanged(e);
            return null;
          }

          @Override
          public Void visit(ReplayComplete e) {
            listener.onReplayComplete(e);
            return null;
          }

          @Override
          public Void visit(ModelSwitchFailed e) {
            listener.onModelSwitchFailed(e);
            return null;
          }

          @Override
          public Void visit(TurnComplete e) {
            listener.onTurnComplete(e);
            return null;
          }

          @Override
          public Void visit(TurnError e) {
            listener.onTurnError(e);
            return null;
          }

          @Override
          public Void visit(SessionDied e) {
            listener.onSessionDied(e);
            return null;
          }

          @Override
          public Void visit(SessionClosed e) {
            listener.onSessionClosed(e);
            return null;
          }

          @Override
          public Void visit(StreamError e) {
            listener.onStreamError(e);
            return null;
          }

          @Override
          public Void visit(ResyncRequired e) {
            listener.onResyncRequired(e);
            return null;
          }

          @Override
          public Void visit(Unknown e) {
            listener.onUnknown(e);
            return null;
          }
        });
  }
}
