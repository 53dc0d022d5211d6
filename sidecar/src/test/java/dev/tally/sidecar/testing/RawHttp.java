package dev.tally.sidecar.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** HTTP/1.1 read by hand, for tests that keep writing on a connection after its answer came. */
public final class RawHttp {
  private static final Pattern CONTENT_LENGTH = Pattern.compile("(?im)^content-length:\\s*(\\d+)");

  private RawHttp() {}

  /**
   * Reads one response with a {@code Content-Length} body and leaves the connection open; returns
   * head and body as text. Throws if the connection ends inside the head or the head has no length.
   */
  public static String readResponse(InputStream in) throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    int matched = 0; // how much of CRLF CRLF the last bytes read were
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException(
            "connection ended inside the response head: "
                + got.toString(StandardCharsets.ISO_8859_1));
      }
      got.write(b);
      matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String head = got.toString(StandardCharsets.ISO_8859_1);
    Matcher m = CONTENT_LENGTH.matcher(head);
    if (!m.find()) {
      throw new IOException("no Content-Length in " + head);
    }
    byte[] body = in.readNBytes(Integer.parseInt(m.group(1)));
    return head + new String(body, StandardCharsets.UTF_8);
  }

  /**
   * Sends {@code head} (a request head declaring {@code Content-Length: total}) and the first 64
   * KiB of a body of spaces, reads the answer the server gives before the body ended, waits 200 ms
   * (a server that closes right after answering has done so by then: the next writes fail), sends
   * the rest and checks the server then closes. Returns the answer.
   */
  public static String answerWhileSending(URI server, String head, int total)
      throws IOException, InterruptedException {
    try (Socket s = new Socket(server.getHost(), server.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      byte[] chunk = new byte[64 * 1024];
      Arrays.fill(chunk, (byte) ' ');
      out.write(chunk);
      out.flush();
      String answer = readResponse(in);
      Thread.sleep(200);
      for (int sent = chunk.length; sent < total; sent += chunk.length) {
        out.write(chunk, 0, Math.min(chunk.length, total - sent));
      }
      out.flush();
      if (in.read() != -1) {
        throw new AssertionError("the server did not close once the refused body ended");
      }
      return answer;
    }
  }
}
