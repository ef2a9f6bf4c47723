package lamina.lookup.io;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Fixed-width little-endian integers in byte arrays: the byte order of every lookup file.
 *
 * <p>Read and written as whole words through array views, bounds-checked like any array access. In
 * Java because a view's {@code get} and {@code set} must be called with exact types to compile to a
 * plain load or store.
 */
public final class LittleEndian {
  public static final int IntBytes = 4;
  public static final int LongBytes = 8;

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private LittleEndian() {}

  public static void putInt(byte[] b, int off, int v) {
    INT.set(b, off, v);
  }

  public static int getInt(byte[] b, int off) {
    return (int) INT.get(b, off);
  }

  public static void putLong(byte[] b, int off, long v) {
    LONG.set(b, off, v);
  }

  public static long getLong(byte[] b, int off) {
    return (long) LONG.get(b, off);
  }

  /** Unsigned 32-bit value as a long. */
  public static long getUnsignedInt(byte[] b, int off) {
    return getInt(b, off) & 0xffffffffL;
  }
}
