package dev.tally.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogueFileTest {
  @TempDir Path dir;

  @Test
  void nothingKeptLoadsAsNothing() throws Exception {
    try (CatalogueFile f = new CatalogueFile(dir)) {
      assertThat(f.load()).isNull();
    }
  }

  @Test
  void theLatestDocumentIsKeptWholeAndOwnerOnly() throws Exception {
    CatalogueFile f = new CatalogueFile(dir);
    for (int i = 0; i < 20; i++) {
      f.keep(("{\"v\":1,\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
    }
    f.close(); // writes what is pending
    assertThat(new String(new CatalogueFile(dir).load(), StandardCharsets.UTF_8))
        .isEqualTo("{\"v\":1,\"n\":19}");
    assertThat(dir.resolve(CatalogueFile.NAME + ".tmp")).doesNotExist();
    assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.path())))
        .isEqualTo("rw-------");
  }

  @Test
  void aDocumentKeptAfterCloseIsDroppedNotThrown() throws Exception {
    CatalogueFile f = new CatalogueFile(dir);
    f.close();
    f.keep("{}".getBytes(StandardCharsets.UTF_8));
    assertThat(f.load()).isNull();
  }
}
