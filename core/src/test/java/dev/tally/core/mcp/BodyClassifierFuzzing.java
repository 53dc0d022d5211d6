package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tally.core.canonical.Utf8Scan;
import dev.tally.core.testing.FuzzBudget;

/**
 * Coverage-guided fuzzing (Jazzer) of the request classifier and the {@code tools/call} reader
 * (issue 21). Properties: both answer every input with a value, never an exception; what is not
 * refused is strict UTF-8 (RFC 3629); a refusal carries a code and a message; the two agree (a call
 * the reader accepts is a {@code tools/call} the classifier passed as well formed, with the same
 * tool name); and splicing the execution id into an accepted call gives a body both read as the
 * same call. How to run it: {@code core/src/test/resources/fuzz/README.md}.
 */
class BodyClassifierFuzzing {
  private static final WireJson JSON = WireJson.defaults();
  private static final BodyClassifier CLASSIFIER = BodyClassifier.create(JSON);
  private static final ToolCallReader READER = ToolCallReader.create(JSON);

  @FuzzTest(maxDuration = FuzzBudget.CI)
  void classifierAndReaderAgree(byte[] body) {
    BodyScan s = CLASSIFIER.classify(body);
    assertThat(s).isNotNull();
    if (s.shape() == BodyScan.Shape.REFUSED) {
      assertThat(s.problem()).isNotNull();
      assertThat(s.problem().code()).isNotNull();
      assertThat(s.problem().message()).startsWith("request body: ");
      return;
    }
    assertThat(Utf8Scan.scan(body, 0, body.length)).isNegative();
    ToolCallReader.Read r = READER.read(body, 0, body.length);
    assertThat(r).isNotNull();
    if (r instanceof ToolCallReader.Refused refused) {
      assertThat(refused.error().code()).isNotNull();
      assertThat(refused.error().message()).startsWith("tools/call: ");
      return;
    }
    if (!s.isToolsCall()) {
      return; // the reader is only run on tools/call bodies; what it says of others is moot
    }
    ToolCallEnvelope e = ((ToolCallReader.Ok) r).envelope();
    assertThat(s.kind()).isEqualTo(BodyScan.Kind.REQUEST);
    assertThat(s.wellFormedCall()).isTrue();
    assertThat(e.tool()).isNotEmpty().isEqualTo(s.name());
    assertThat(e.id()).isEqualTo(s.id());

    byte[] spliced = e.withExecutionId("act_01JZZZZZZZZZZZZZZZZZZZZZZZ");
    BodyScan again = CLASSIFIER.classify(spliced);
    assertThat(again.shape()).isEqualTo(BodyScan.Shape.MESSAGE);
    assertThat(again.name()).isEqualTo(s.name());
    ToolCallReader.Read reread = READER.read(spliced, 0, spliced.length);
    assertThat(reread).isInstanceOf(ToolCallReader.Ok.class);
    ToolCallEnvelope e2 = ((ToolCallReader.Ok) reread).envelope();
    assertThat(e2.tool()).isEqualTo(e.tool());
    assertThat(e2.arguments()).isEqualTo(e.arguments());
    assertThat(e2.meta().path("dev.tally/executionId").asText())
        .isEqualTo("act_01JZZZZZZZZZZZZZZZZZZZZZZZ");
  }
}
