package dev.tally.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md §2 against the compiled main classes of every module: the layout is visible and
 * enforced, not only described.
 */
class LayoutTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tally");

  @Test
  void theClassesOfEveryModuleWereFound() {
    assertThat(MAIN.stream().map(c -> c.getPackageName()))
        .anyMatch(p -> p.startsWith("dev.tally.core.mcp"))
        .anyMatch(p -> p.startsWith("dev.tally.sidecar.internal.call"))
        .anyMatch(p -> p.startsWith("dev.tally.filter"))
        .anyMatch(p -> p.startsWith("dev.tally.telemetry"))
        .anyMatch(p -> p.startsWith("dev.tally.store.postgres"));
  }

  @Test
  void coreHasNoPackageCycle() {
    slices().matching("dev.tally.core.(*)..").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void coreKnowsNoTransportAndNoDatabaseDriver() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.core..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.vertx..",
            "io.netty..",
            "jakarta.servlet..",
            "org.postgresql..",
            "io.opentelemetry..",
            "io.prometheus..",
            "dev.tally.telemetry..",
            "dev.tally.sidecar..",
            "dev.tally.filter..",
            "dev.tally.store.postgres..")
        .check(MAIN);
  }

  @Test
  void theTelemetryModuleImplementsCoresSeamAndKnowsNoAdapterOrStore() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.telemetry..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.vertx..",
            "jakarta.servlet..",
            "dev.tally.sidecar..",
            "dev.tally.filter..",
            "dev.tally.store.postgres..",
            "dev.tally.core.gate..",
            "dev.tally.core.call..")
        .check(MAIN);
    noClasses()
        .that()
        .resideInAPackage("dev.tally.core.observe..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tally.core.gate..", "dev.tally.core.call..", "dev.tally.core.runtime..")
        .check(MAIN);
  }

  @Test
  void theWireLayerKnowsNoGateAndTheGateNoPipeline() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.core.mcp..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tally.core.gate..", "dev.tally.core.call..", "dev.tally.core.runtime..")
        .check(MAIN);
    noClasses()
        .that()
        .resideInAPackage("dev.tally.core.gate..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tally.core.call..", "dev.tally.core.runtime..")
        .check(MAIN);
  }

  @Test
  void theSidecarsInternalPackagesAreInternalAndFreeOfCycles() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.tally.sidecar..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tally.sidecar.internal..")
        .check(MAIN);
    slices().matching("dev.tally.sidecar.internal.(*)..").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void theAdaptersDependOnEachOtherNever() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.filter..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tally.sidecar..")
        .check(MAIN);
    noClasses()
        .that()
        .resideInAPackage("dev.tally.sidecar..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tally.filter..")
        .check(MAIN);
  }

  @Test
  void noTwoMainTypesShareASimpleName() {
    Map<String, List<String>> byName =
        MAIN.stream()
            .filter(JavaClass::isTopLevelClass)
            .collect(
                Collectors.groupingBy(
                    JavaClass::getSimpleName,
                    TreeMap::new,
                    Collectors.mapping(JavaClass::getName, Collectors.toList())));
    byName.values().removeIf(names -> names.size() < 2);
    assertThat(byName).as("simple names shared by main types").isEmpty();
  }
}
