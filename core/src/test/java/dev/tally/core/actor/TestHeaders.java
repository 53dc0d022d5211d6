package dev.tally.core.actor;

import dev.tally.core.mcp.Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Request headers with repeated names and an optional client certificate subject. */
final class TestHeaders implements Headers {
  private final List<String[]> pairs = new ArrayList<>();
  private String subject;

  static TestHeaders of(String... nameValue) {
    TestHeaders h = new TestHeaders();
    for (int i = 0; i < nameValue.length; i += 2) {
      h.pairs.add(new String[] {nameValue[i], nameValue[i + 1]});
    }
    return h;
  }

  TestHeaders subject(String s) {
    this.subject = s;
    return this;
  }

  @Override
  public String get(String name) {
    List<String> all = all(name);
    return all.isEmpty() ? null : all.get(0);
  }

  @Override
  public List<String> all(String name) {
    List<String> out = new ArrayList<>();
    for (String[] p : pairs) {
      if (p[0].toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        out.add(p[1]);
      }
    }
    return out;
  }

  @Override
  public String clientSubject() {
    return subject;
  }
}
