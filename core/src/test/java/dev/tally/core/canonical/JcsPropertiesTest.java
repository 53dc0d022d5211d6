package dev.tally.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Properties of canonicalization over seeded random documents. */
class JcsPropertiesTest {
  private static final int DOCUMENTS = 600;
  private final Jcs jcs = Jcs.create();

  @Test
  void canonicalizingTwiceChangesNothing() {
    RandomJson random = new RandomJson(1);
    for (int i = 0; i < DOCUMENTS; i++) {
      byte[] once = jcs.canonicalize(random.tree(6));
      assertThat(jcs.canonicalize(once)).isEqualTo(once);
      assertThat(jcs.canonicalize(jcs.parse(once))).isEqualTo(once);
    }
  }

  @Test
  void memberOrderWhitespaceEscapesAndNumberSpellingNeverChangeTheOutput() {
    RandomJson random = new RandomJson(2);
    for (int i = 0; i < DOCUMENTS; i++) {
      JsonNode tree = random.tree(6);
      byte[] expected = jcs.canonicalize(tree);
      for (int k = 0; k < 3; k++) {
        String spelling = random.spell(tree);
        if (!Arrays.equals(jcs.canonicalize(spelling.getBytes(UTF_8)), expected)) {
          fail("canonical form changed for spelling " + spelling);
        }
      }
    }
  }

  @Test
  void outputParsesBackToAnEqualTree() {
    RandomJson random = new RandomJson(3);
    for (int i = 0; i < DOCUMENTS; i++) {
      JsonNode tree = random.tree(6);
      byte[] canonical = jcs.canonicalize(tree);
      assertThat(jcs.parse(canonical)).isEqualTo(tree);
    }
  }

  @Test
  void outputIsJsonThatJacksonReadsAsTheSameValue() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    RandomJson random = new RandomJson(4);
    for (int i = 0; i < 300; i++) {
      JsonNode tree = random.tree(5);
      byte[] canonical = jcs.canonicalize(tree);
      JsonNode jackson = mapper.readTree(canonical);
      assertThat(jcs.canonicalize(jackson)).isEqualTo(canonical);
    }
  }

  @Test
  void canonicalFormIsCompactUtf8WithSortedMembers() {
    RandomJson random = new RandomJson(5);
    for (int i = 0; i < 300; i++) {
      JsonNode tree = random.tree(4);
      if (!tree.isObject()) {
        continue;
      }
      String out = new String(jcs.canonicalize(tree), UTF_8);
      java.util.List<String> names = new java.util.ArrayList<>();
      jcs.parse(out.getBytes(UTF_8)).properties().forEach(e -> names.add(e.getKey()));
      assertThat(names).isSorted();
    }
  }
}
