package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolsSectionTest {

  private static ToolsConfig tools(String yaml) {
    return TallyConfig.parse(yaml, Map.of()).tools();
  }

  private static List<String> problems(String yaml) {
    return catchThrowableOfType(ConfigException.class, () -> TallyConfig.parse(yaml, Map.of()))
        .problems();
  }

  @Test
  void withoutToolsEveryToolGetsTheSafeDefault() {
    ContractRegistry r = tools("").newRegistry();
    ToolContract c = r.resolve("anything");
    assertThat(c.toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(c.source()).isEqualTo(ToolContract.Source.DEFAULT);
    assertThat(c.unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REPORT);
    assertThat(c.tool()).isEqualTo("anything");
  }

  @Test
  void namedToolsInheritUnsetFieldsFromTheDefaultEntry() {
    ToolsConfig t =
        tools(
            """
            tools:
              default:
                attachWindow: 20m
                attachWait: 5s
                resultRetention: 7d
                confirmationRequired: true
                fingerprint: {exclude: [/traceId]}
              create_ticket:
                class: keyed
                attachWindow: 1h
            """);
    ToolContract c = t.tools().get("create_ticket");
    assertThat(c.source()).isEqualTo(ToolContract.Source.CONFIGURATION);
    assertThat(c.toolClass()).isEqualTo(ToolClass.KEYED);
    assertThat(c.attachWindow()).isEqualTo(Duration.ofHours(1));
    assertThat(c.attachWait()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.resultRetention()).isEqualTo(Duration.ofDays(7));
    assertThat(c.confirmationRequired()).isTrue();
    assertThat(c.unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REDISPATCH);
    assertThat(c.onDisconnect()).isEqualTo(DisconnectBehaviour.FINISH);
    assertThat(c.fingerprint().exclude()).containsExactly("/traceId");

    ToolContract d = t.defaults();
    assertThat(d.source()).isEqualTo(ToolContract.Source.CONFIGURATION);
    assertThat(d.toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(d.attachWindow()).isEqualTo(Duration.ofMinutes(20));

    ContractRegistry r = t.newRegistry();
    assertThat(r.resolve("create_ticket")).isEqualTo(c);
    ToolContract other = r.resolve("other");
    assertThat(other.tool()).isEqualTo("other");
    assertThat(other.source()).isEqualTo(ToolContract.Source.CONFIGURATION);
    assertThat(other.attachWindow()).isEqualTo(Duration.ofMinutes(20));
    assertThat(t.newRegistry()).isNotSameAs(r);
  }

  @Test
  void anEmptyEntryIsAConfiguredToolWithTheDefaults() {
    ToolContract c = tools("tools:\n  search:\n").tools().get("search");
    assertThat(c.source()).isEqualTo(ToolContract.Source.CONFIGURATION);
    assertThat(c).isEqualTo(ToolContract.defaultFor("search").forTool("search", c.source()));
  }

  @Test
  void listsAndMapsReplaceRatherThanMerge() {
    ToolContract c =
        tools(
                """
                tools:
                  default:
                    fingerprint: {exclude: [/a], secrets: [/token], defaults: {/x: 1}}
                  t:
                    fingerprint: {exclude: [/b], defaults: {/y: "two"}}
                """)
            .tools()
            .get("t");
    assertThat(c.fingerprint().exclude()).containsExactly("/b");
    assertThat(c.fingerprint().secrets()).containsExactly("/token");
    assertThat(c.fingerprint().defaults()).containsOnlyKeys("/y");
    assertThat(c.fingerprint().defaults().get("/y")).isEqualTo(TextNode.valueOf("two"));
  }

  @Test
  void readOnlyToolsCancelOnDisconnectAndNeverWaitForConfirmation() {
    ToolContract c =
        tools(
                """
                tools:
                  default: {confirmationRequired: true, class: keyed}
                  search: {class: read_only}
                """)
            .tools()
            .get("search");
    assertThat(c.isReadOnly()).isTrue();
    assertThat(c.confirmationRequired()).isFalse();
    assertThat(c.onDisconnect()).isEqualTo(DisconnectBehaviour.CANCEL);
    assertThat(c.unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REPORT);
  }

  @Test
  void readOnlyToolsRejectSettingsThatCannotApply() {
    assertThat(
            problems(
                """
                tools:
                  search:
                    class: read_only
                    confirmationRequired: true
                    unknownOutcome: redispatch
                """))
        .containsExactly(
            "tools.search.unknownOutcome: redispatch (expected: report or nothing: read_only tools"
                + " pass through and have no unknown outcome)",
            "tools.search.confirmationRequired: true (expected: false: read_only tools pass"
                + " through without a record and cannot wait for one)");
  }

  @Test
  void redispatchNeedsAKeyedTool() {
    assertThat(problems("tools:\n  deploy: {unknownOutcome: redispatch}\n"))
        .containsExactly(
            "tools.deploy.unknownOutcome: redispatch (expected: report or status_check; redispatch"
                + " needs class keyed and this tool is irreversible)");
  }

  @Test
  void anIncompatibleInheritedPolicySaysWhereItCameFrom() {
    assertThat(
            problems(
                """
                tools:
                  default: {class: keyed, unknownOutcome: redispatch}
                  deploy: {class: irreversible}
                """))
        .containsExactly(
            "tools.deploy.unknownOutcome: redispatch (inherited from tools.default) (expected:"
                + " report or status_check; redispatch needs class keyed and this tool is"
                + " irreversible)");
  }

  @Test
  void aToolThatSetsItsClassGetsThatClassesPolicyUnlessTheDefaultSetsOne() {
    ToolsConfig t =
        tools(
            """
            tools:
              default: {class: keyed}
              deploy: {class: irreversible}
              refund: {class: status_check, statusTool: refund_status}
            """);
    assertThat(t.defaults().unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REDISPATCH);
    assertThat(t.tools().get("deploy").unknownOutcome()).isEqualTo(UnknownOutcomePolicy.REPORT);
    ToolContract refund = t.tools().get("refund");
    assertThat(refund.unknownOutcome()).isEqualTo(UnknownOutcomePolicy.STATUS_CHECK);
    assertThat(refund.statusTool()).isEqualTo("refund_status");
  }

  @Test
  void statusCheckNeedsAStatusToolOtherThanItself() {
    assertThat(
            problems(
                """
                tools:
                  refund: {class: status_check}
                  pay: {unknownOutcome: status_check}
                  loop: {unknownOutcome: status_check, statusTool: loop}
                  plain: {statusTool: lookup}
                """))
        .containsExactly(
            "tools.refund.statusTool: missing (expected: the tool that looks up the outcome,"
                + " required because class is status_check)",
            "tools.pay.statusTool: missing (expected: the tool that looks up the outcome,"
                + " required because unknownOutcome is status_check)",
            "tools.loop.statusTool: loop (expected: a tool other than this one)",
            "tools.plain.statusTool: lookup (expected: nothing: statusTool is only used with"
                + " unknownOutcome status_check, this tool has report)");
  }

  @Test
  void theDefaultEntryMaySetAStatusToolForTheToolsThatUseIt() {
    ToolsConfig t =
        tools(
            """
            tools:
              default: {statusTool: get_operation}
              refund: {class: status_check}
            """);
    assertThat(t.defaults().statusTool()).isNull();
    assertThat(t.tools().get("refund").statusTool()).isEqualTo("get_operation");
  }

  @Test
  void anIrreversibleToolMayUseAStatusCheck() {
    ToolContract c =
        tools("tools:\n  deploy: {unknownOutcome: status_check, statusTool: deploy_status}\n")
            .tools()
            .get("deploy");
    assertThat(c.toolClass()).isEqualTo(ToolClass.IRREVERSIBLE);
    assertThat(c.unknownOutcome()).isEqualTo(UnknownOutcomePolicy.STATUS_CHECK);
  }

  @Test
  void resultsMustOutliveTheAttachWindow() {
    assertThat(problems("tools:\n  t: {attachWindow: 2h, resultRetention: 1h}\n"))
        .containsExactly(
            "tools.t.resultRetention: 1h (expected: at least the attachWindow 2h, so a retry"
                + " inside the window can still be replayed)");
    assertThat(problems("tools:\n  default: {resultRetention: 1h}\n  t: {attachWindow: 2h}\n"))
        .containsExactly(
            "tools.t.resultRetention: 1h (inherited from tools.default) (expected: at least the"
                + " attachWindow 2h, so a retry inside the window can still be replayed)");
  }

  @Test
  void replayWindowDefaultsToTwoSecondsAndIsInheritedAndBounded() {
    ToolsConfig cfg =
        tools("tools:\n  default: {replayWindow: 500ms}\n  t: {}\n  u: {replayWindow: 0s}\n");
    assertThat(cfg.tools().get("t").replayWindow()).isEqualTo(Duration.ofMillis(500));
    assertThat(cfg.tools().get("u").replayWindow()).isZero();
    assertThat(tools("tools:\n  t: {}\n").tools().get("t").replayWindow())
        .isEqualTo(ToolContract.DEFAULT_REPLAY_WINDOW);
    assertThat(problems("tools:\n  t: {attachWindow: 1m, replayWindow: 2m}\n"))
        .containsExactly(
            "tools.t.replayWindow: 2m (expected: at most the attachWindow 1m: a delivered"
                + " execution is matched only inside the attach window)");
    assertThat(problems("tools:\n  t: {replayWindow: -1s}\n")).hasSize(1);
  }

  @Test
  void durationsAcceptShortAndIsoSyntaxWithBounds() {
    ToolContract c =
        tools("tools:\n  t: {attachWindow: PT15M, attachWait: 0s, resultRetention: P30D}\n")
            .tools()
            .get("t");
    assertThat(c.attachWindow()).isEqualTo(Duration.ofMinutes(15));
    assertThat(c.attachWait()).isZero();
    assertThat(c.resultRetention()).isEqualTo(Duration.ofDays(30));
    assertThat(problems("tools:\n  t: {attachWait: 2h, attachWindow: 0s}\n"))
        .containsExactly(
            "tools.t.attachWindow: 0s (expected: a positive duration like 30s, 10m, 24h)",
            "tools.t.attachWait: 2h (expected: a duration of at most 1h)");
  }

  @Test
  void fingerprintPointersAreValidatedAndShown() {
    assertThat(
            problems(
                """
                tools:
                  t:
                    fingerprint:
                      include: [/a, title, /b~2, /a]
                      exclude: /c
                      secrets: [/api~1key, 5]
                      defaults: {nope: 1, /ok: {nested: true}}
                """))
        .containsExactly(
            "tools.t.fingerprint.include[1]: title (expected: an RFC 6901 JSON pointer like /title"
                + " or /a/0)",
            "tools.t.fingerprint.include[2]: /b~2 (expected: an RFC 6901 JSON pointer like /title"
                + " or /a/0)",
            "tools.t.fingerprint.include[3]: /a (expected: each pointer once)",
            "tools.t.fingerprint.exclude: /c (expected: a list of RFC 6901 JSON pointers like"
                + " [/title, /a/0])",
            "tools.t.fingerprint.defaults.nope: not a JSON pointer (expected: an RFC 6901 JSON"
                + " pointer like /title or /a/0 as the key)",
            "tools.t.fingerprint.secrets[1]: 5 (expected: an RFC 6901 JSON pointer like /title or"
                + " /a/0)");
  }

  @Test
  void aPointerMayNotBeBothExcludedAndUsed() {
    assertThat(
            problems(
                """
                tools:
                  t:
                    fingerprint:
                      include: [/a]
                      exclude: [/a, /s, /d]
                      secrets: [/s]
                      defaults: {/d: 1}
                """))
        .containsExactly(
            "tools.t.fingerprint: /a is in both exclude and include (expected: a pointer in one of"
                + " them)",
            "tools.t.fingerprint: /s is in both exclude and secrets (expected: a pointer in one of"
                + " them)",
            "tools.t.fingerprint: /d is in both exclude and defaults (expected: a pointer in one"
                + " of them)");
  }

  @Test
  void fingerprintRulesAreCarriedIntoTheContract() {
    ToolContract c =
        tools(
                """
                tools:
                  deploy_release:
                    fingerprint:
                      include: [/service, /version, /env]
                      defaults: {/env: 3}
                      secrets: [/approvalToken]
                """)
            .tools()
            .get("deploy_release");
    assertThat(c.fingerprint().include()).containsExactly("/service", "/version", "/env");
    assertThat(c.fingerprint().defaults()).containsEntry("/env", IntNode.valueOf(3));
    assertThat(c.fingerprint().secrets()).containsExactly("/approvalToken");
    assertThat(c.fingerprint().exclude()).isEmpty();
  }

  @Test
  void unknownContractKeysAreTypos() {
    assertThat(problems("tools:\n  t: {attachWindo: 5m, fingerprint: {exclud: [/a]}}\n"))
        .containsExactly(
            "tools.t.attachWindo: unknown key (did you mean attachWindow?) (expected one of:"
                + " class, fingerprint, attachWindow, attachWait, resultRetention, unknownOutcome,"
                + " statusTool, statusArguments, statusExecutionIdArgument, confirmationRequired,"
                + " onDisconnect, replayWindow, releaseOnError)",
            "tools.t.fingerprint.exclud: unknown key (did you mean exclude?) (expected one of:"
                + " include, exclude, defaults, secrets)");
  }

  @Test
  void badEnumValuesListTheChoices() {
    assertThat(
            problems("tools:\n  t: {class: idempotent, onDisconnect: abort, unknownOutcome: x}\n"))
        .containsExactly(
            "tools.t.class: idempotent (expected: one of read_only, keyed, status_check,"
                + " irreversible)",
            "tools.t.unknownOutcome: x (expected: one of report, redispatch, status_check)",
            "tools.t.onDisconnect: abort (expected: one of finish, cancel)");
  }

  @Test
  void toolNamesAreNotMistakenForSecretKeys() {
    assertThat(problems("tools:\n  create_token: {attachWindow: -5m}\n"))
        .containsExactly(
            "tools.create_token.attachWindow: -5m (expected: a positive duration like 30s, 10m,"
                + " 24h)");
  }

  @Test
  void aToolEntryMustBeAMapping() {
    assertThat(problems("tools:\n  t: keyed\n"))
        .containsExactly("tools.t: keyed (expected: a mapping of keys to values)");
  }

  @Test
  void theDefaultEntryIsValidatedLikeAnyTool() {
    assertThat(problems("tools:\n  default: {class: status_check}\n"))
        .containsExactly(
            "tools.default.statusTool: missing (expected: the tool that looks up the outcome,"
                + " required because class is status_check)");
  }

  @Test
  void defaultEntryCanBeSetFromTheEnvironment() {
    ToolsConfig t =
        TallyConfig.parse(
                "tools:\n  t: {class: keyed}\n",
                Map.of(
                    "TALLY_TOOLS_DEFAULT_CONFIRMATION_REQUIRED", "true",
                    "TALLY_TOOLS_DEFAULT_ON_DISCONNECT", "cancel"))
            .tools();
    assertThat(t.tools().get("t").confirmationRequired()).isTrue();
    assertThat(t.tools().get("t").onDisconnect()).isEqualTo(DisconnectBehaviour.CANCEL);
    assertThat(t.defaults().source()).isEqualTo(ToolContract.Source.CONFIGURATION);
  }

  @Test
  void statusArgumentsMapTheStatusToolsArgumentsFromTheCall() {
    ToolsConfig t =
        tools(
            """
            tools:
              refund:
                class: status_check
                statusTool: refund_status
                statusExecutionIdArgument: operation
                statusArguments: {orderId: /order/id, amount: /amount}
              plain: {class: status_check, statusTool: get_op}
            """);
    ToolContract refund = t.tools().get("refund");
    assertThat(refund.statusArguments().executionIdName()).isEqualTo("operation");
    assertThat(refund.statusArguments().fromCall())
        .containsExactly(Map.entry("amount", "/amount"), Map.entry("orderId", "/order/id"));
    assertThat(t.tools().get("plain").statusArguments())
        .isEqualTo(dev.tally.core.contract.StatusArguments.DEFAULT);
    assertThat(refund.digest())
        .isNotEqualTo(
            t.tools()
                .get("plain")
                .forTool("refund", ToolContract.Source.CONFIGURATION)
                .withReplayWindow(refund.replayWindow())
                .digest());
  }

  @Test
  void badStatusArgumentsAreNamedWithTheKeyAndWhatWasExpected() {
    assertThat(
            problems(
                """
                tools:
                  a: {class: status_check, statusTool: s, statusArguments: {orderId: order}}
                  b: {class: status_check, statusTool: s, statusArguments: {executionId: /x}}
                  c: {class: keyed, statusArguments: {orderId: /order}}
                  d: {class: status_check, statusTool: s, statusArguments: [/x]}
                """))
        .containsExactly(
            "tools.a.statusArguments.orderId: order (expected: an RFC 6901 JSON pointer like"
                + " /title or /a/0 into the call's arguments)",
            "tools.d.statusArguments: a list (expected: a mapping of keys to values)",
            "tools.b.statusArguments: executionId (expected: an argument other than"
                + " statusExecutionIdArgument executionId)",
            "tools.c.statusArguments: set (expected: nothing: statusArguments is only used with"
                + " unknownOutcome status_check, this tool has redispatch)");
  }
}
