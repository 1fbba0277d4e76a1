package dev.companion4j.engine.internal.server;

import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/** Drops SSE {@code id:} lines from POST responses (see {@link McpTransportFilter}). */
final class NoEventIdResponse extends HttpServletResponseWrapper {
  private PrintWriter writer;

  NoEventIdResponse(HttpServletResponse response) {
    super(response);
  }

  @Override
  public synchronized PrintWriter getWriter() throws IOException {
    if (writer == null) {
      writer = new PrintWriter(new EventIdStrippingWriter(super.getWriter()));
    }
    return writer;
  }

  /** A streaming filter that removes every line starting with {@code id:}. */
  static final class EventIdStrippingWriter extends FilterWriter {
    private final StringBuilder lineStart = new StringBuilder(3);
    private boolean atLineStart = true;
    private boolean dropping;

    EventIdStrippingWriter(Writer out) {
      super(out);
    }

    @Override
    public void write(int c) throws IOException {
      char ch = (char) c;
      if (atLineStart) {
        lineStart.append(ch);
        if (ch == '\n' || ch == '\r') {
          flushLineStart();
          return;
        }
        if ("id:".startsWith(lineStart.toString())) {
          if (lineStart.length() == 3) {
            dropping = true;
            atLineStart = false;
            lineStart.setLength(0);
          }
          return;
        }
        atLineStart = false;
        out.write(lineStart.toString());
        lineStart.setLength(0);
        return;
      }
      if (!dropping) {
        out.write(ch);
      }
      if (ch == '\n') {
        atLineStart = true;
        dropping = false;
      }
    }

    private void flushLineStart() throws IOException {
      out.write(lineStart.toString());
      lineStart.setLength(0);
      atLineStart = lineStart.isEmpty();
    }

    @Override
    public void write(char[] cbuf, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        write(cbuf[i]);
      }
    }

    @Override
    public void write(String str, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        write(str.charAt(i));
      }
    }
  }
}
