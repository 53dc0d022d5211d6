package dev.tally.core.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ContractRegistryTest {
  private static ToolContract confirmingDefault() {
    ToolContract d = ToolContract.defaultFor("default");
    return new ToolContract(
        "default",
        d.toolClass(),
        ToolContract.Source.CONFIGURATION,
        d.fingerprint(),
        d.attachWindow(),
        d.attachWait(),
        d.resultRetention(),
        d.unknownOutcome(),
        null,
        true,
        d.onDisconnect());
  }

  @Test
  void configurationWinsOverAnnotationsWhichWinOverTheDefault() {
    ContractRegistry r =
        ContractRegistry.of(
            Map.of(
                "pay",
                ToolContract.of("pay", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)),
            ToolContract.defaultFor("default"));
    r.learnAnnotations("pay", true, false);
    r.learnAnnotations("search", true, false);
    r.learnAnnotations("deploy", false, true);

    assertThat(r.resolve("pay").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(r.resolve("pay").source()).isEqualTo(ToolContract.Source.CONFIGURATION);
    assertThat(r.resolve("search").toolClass()).isEqualTo(ToolClass.READ_ONLY);
    assertThat(r.resolve("search").source()).isEqualTo(ToolContract.Source.ANNOTATIONS);
    assertThat(r.resolve("deploy").toolClass()).isEqualTo(ToolClass.KEYED);
    assertThat(r.resolve("deploy").unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REDISPATCH);
    assertThat(r.resolve("other").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(r.resolve("other").tool()).isEqualTo("other");
  }

  @Test
  void annotationsWithoutHintsFallBackToTheDefault() {
    ContractRegistry r = ContractRegistry.defaults();
    r.learnAnnotations("search", true, null);
    r.learnAnnotations("search", false, false);
    assertThat(r.resolve("search").toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
  }

  @Test
  void readOnlyToolsNeverInheritConfirmation() {
    ContractRegistry r = ContractRegistry.of(Map.of(), confirmingDefault());
    r.learnAnnotations("search", true, false);
    r.learnAnnotations("deploy", false, true);
    assertThat(r.resolve("search").confirmationRequired()).isFalse();
    assertThat(r.resolve("deploy").confirmationRequired()).isTrue();
  }
}
