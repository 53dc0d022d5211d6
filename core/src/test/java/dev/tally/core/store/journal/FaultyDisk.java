package dev.tally.core.store.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A disk for tests: file channels that can be made to fail writes or fsyncs, or to hold an fsync
 * until released, and that record which threads forced.
 */
final class FaultyDisk implements ChannelFactory {
  final AtomicBoolean failWrites = new AtomicBoolean();

  /** Writes from threads whose name starts with this fail too (null: none). */
  final AtomicReference<String> failWritesFromThreads = new AtomicReference<>();

  final AtomicBoolean failForce = new AtomicBoolean();

  /** Fsyncs of segments return at once without syncing (for tests that never lose power). */
  final AtomicBoolean skipForce = new AtomicBoolean();

  final List<String> forcingThreads = new CopyOnWriteArrayList<>();
  private final AtomicReference<CountDownLatch> hold = new AtomicReference<>();
  private final CountDownLatch holding = new CountDownLatch(1);

  /** The next fsync of a segment blocks until {@link #release()}. */
  void holdNextForce() {
    hold.set(new CountDownLatch(1));
  }

  /** Waits until an fsync is being held. */
  void awaitHolding() throws InterruptedException {
    if (!holding.await(20, TimeUnit.SECONDS)) {
      throw new AssertionError("no fsync was held");
    }
  }

  void release() {
    CountDownLatch l = hold.getAndSet(null);
    if (l != null) {
      l.countDown();
    }
  }

  @Override
  public FileChannel open(
      Path path, Set<? extends OpenOption> options, FileAttribute<?>... attributes)
      throws IOException {
    FileChannel real = FileChannel.open(path, options, attributes);
    return path.getFileName().toString().startsWith("journal-") ? new Channel(real) : real;
  }

  private final class Channel extends FileChannel {
    private final FileChannel d;

    Channel(FileChannel delegate) {
      this.d = delegate;
    }

    private void checkWrite() throws IOException {
      String prefix = failWritesFromThreads.get();
      if (failWrites.get()
          || (prefix != null && Thread.currentThread().getName().startsWith(prefix))) {
        throw new IOException("simulated write failure (no space left on device)");
      }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return d.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return d.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      checkWrite();
      return d.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      checkWrite();
      return d.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
      return d.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      d.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return d.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      d.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      forcingThreads.add(Thread.currentThread().getName());
      CountDownLatch l = hold.get();
      if (l != null) {
        holding.countDown();
        try {
          l.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
      if (failForce.get()) {
        throw new IOException("simulated fsync failure (EIO)");
      }
      if (skipForce.get()) {
        return;
      }
      d.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return d.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      checkWrite();
      return d.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return d.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      checkWrite();
      return d.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return d.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return d.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return d.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      d.close();
    }
  }
}
