package lamina.lookup.sort

import java.io.File

import lamina.lookup.{KeyComparator, LookupOptions, LookupStoreFactory}
import lamina.lookup.cache.CacheManager

/** Factory of sort lookup files. */
final class SortLookupStoreFactory(options: LookupOptions, cacheManager: CacheManager, comparator: KeyComparator)
  extends LookupStoreFactory {
  override def createWriter(file: File, expectedEntries: Long): SortLookupStoreWriter =
    new SortLookupStoreWriter(file, options, expectedEntries, comparator)

  override def createReader(file: File): SortLookupStoreReader =
    new SortLookupStoreReader(file, cacheManager, comparator)
}
