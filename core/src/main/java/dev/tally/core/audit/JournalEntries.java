package dev.tally.core.audit;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * A lenient reader of one journal for display: every line that parses as a JSON object becomes a
 * {@link Entry}, unknown fields are ignored, missing ones read as {@code null}. Integrity is {@link
 * AuditVerifier}'s job; lines that cannot be read are only counted.
 */
final class JournalEntries {

  /** One entry's fields, as far as present. */
  record Entry(long offset, JsonNode node) {
    String text(String field) {
      JsonNode n = node.get(field);
      return n != null && n.isValueNode() && !n.isNull() ? n.asText() : null;
    }

    Long number(String field) {
      JsonNode n = node.get(field);
      return n != null && n.isIntegralNumber() ? n.longValue() : null;
    }

    String type() {
      return text(EntryCodec.TYPE);
    }

    Instant at() {
      String t = text(EntryCodec.AT);
      if (t == null) {
        return null;
      }
      try {
        return Instant.parse(t);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
  }

  private final List<Entry> entries;
  private final int unreadable;

  private JournalEntries(List<Entry> entries, int unreadable) {
    this.entries = entries;
    this.unreadable = unreadable;
  }

  /** Reads {@code file}; a missing file reads as empty. */
  static JournalEntries read(Path file) throws IOException {
    List<Entry> out = new ArrayList<>();
    int bad = 0;
    try (LineReader reader = new LineReader(Files.newInputStream(file), 0)) {
      for (LineReader.Line line = reader.next(); line != null; line = reader.next()) {
        JsonNode n = null;
        if (!line.tooLong() && line.terminated()) {
          try {
            n = EntryCodec.STRICT.readTree(line.bytes());
          } catch (IOException e) {
            n = null;
          }
        }
        if (n != null && n.isObject()) {
          out.add(new Entry(line.offset(), n));
        } else {
          bad++;
        }
      }
    } catch (NoSuchFileException e) {
      return new JournalEntries(List.of(), 0);
    }
    return new JournalEntries(List.copyOf(out), bad);
  }

  List<Entry> entries() {
    return entries;
  }

  /** Lines that were torn, too long or not a JSON object. */
  int unreadable() {
    return unreadable;
  }
}
