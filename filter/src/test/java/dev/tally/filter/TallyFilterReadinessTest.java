package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import org.junit.jupiter.api.Test;

/** What an application's readiness check learns from {@link TallyFilter#notReadyReason()}. */
class TallyFilterReadinessTest {

  @Test
  void anUninitializedFilterIsNotReady() {
    assertThat(new TallyFilter().notReadyReason()).isEqualTo("not initialized");
  }

  @Test
  void aFilterIsReadyWhileItsStoreCanRecordCalls() {
    MemoryExecutionStore store = MemoryExecutionStore.create();
    TallyFilter filter = over(store);
    try {
      assertThat(filter.notReadyReason()).isNull();
      store.close();
      assertThat(filter.notReadyReason()).isEqualTo("store not writable");
    } finally {
      filter.destroy();
    }
  }

  @Test
  void aFullStoreMakesTheFilterNotReady() {
    // A bound no record fits under: the store refuses new claims, so the filter would too.
    MemoryExecutionStore store =
        MemoryExecutionStore.create(MemoryStoreOptions.defaults().withMaxWeightBytes(1));
    TallyFilter filter = over(store);
    try {
      assertThat(store.isWritable()).isFalse();
      assertThat(filter.notReadyReason()).isEqualTo("store not writable");
    } finally {
      filter.destroy();
    }
  }

  private static TallyFilter over(MemoryExecutionStore store) {
    return TallyFilter.builder()
        .settings(FilterSettings.defaults())
        .store(store)
        .keys(SdkApp.keys())
        .build();
  }
}
