package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;

/**
 * Sorts an object's member names (with their values alongside) by UTF-16 code units, which is
 * {@link String#compareTo} (RFC 8785 §3.2.3). Insertion sort for the usual small objects, a merge
 * sort (O(n log n) whatever the input) for large ones; no boxing, reused scratch arrays.
 */
final class MemberSorter {
  private static final int INSERTION_MAX = 16;
  private static final int RETAIN_SCRATCH = 1024;

  private String[] scratchNames = new String[0];
  private JsonNode[] scratchValues = new JsonNode[0];

  /** Sorts {@code names[0..n)} ascending, moving {@code values} in step. Names are distinct. */
  void sort(String[] names, JsonNode[] values, int n) {
    if (n <= INSERTION_MAX) {
      insertion(names, values, 0, n);
      return;
    }
    if (scratchNames.length < n) {
      scratchNames = new String[n];
      scratchValues = new JsonNode[n];
    }
    mergeSort(names, values, scratchNames, scratchValues, 0, n);
    if (scratchNames.length > RETAIN_SCRATCH) {
      scratchNames = new String[0];
      scratchValues = new JsonNode[0];
    } else {
      Arrays.fill(scratchNames, 0, n, null);
      Arrays.fill(scratchValues, 0, n, null);
    }
  }

  private static void insertion(String[] names, JsonNode[] values, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      String name = names[i];
      if (names[i - 1].compareTo(name) <= 0) {
        continue;
      }
      JsonNode value = values[i];
      int j = i - 1;
      do {
        names[j + 1] = names[j];
        values[j + 1] = values[j];
        j--;
      } while (j >= from && names[j].compareTo(name) > 0);
      names[j + 1] = name;
      values[j + 1] = value;
    }
  }

  private static void mergeSort(
      String[] names,
      JsonNode[] values,
      String[] tmpNames,
      JsonNode[] tmpValues,
      int from,
      int to) {
    if (to - from <= INSERTION_MAX) {
      insertion(names, values, from, to);
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(names, values, tmpNames, tmpValues, from, mid);
    mergeSort(names, values, tmpNames, tmpValues, mid, to);
    if (names[mid - 1].compareTo(names[mid]) <= 0) {
      return;
    }
    System.arraycopy(names, from, tmpNames, from, to - from);
    System.arraycopy(values, from, tmpValues, from, to - from);
    int a = from;
    int b = mid;
    for (int k = from; k < to; k++) {
      if (b >= to || (a < mid && tmpNames[a].compareTo(tmpNames[b]) < 0)) {
        names[k] = tmpNames[a];
        values[k] = tmpValues[a++];
      } else {
        names[k] = tmpNames[b];
        values[k] = tmpValues[b++];
      }
    }
  }
}
