package lamina.lookup.hash

import java.io.File

import lamina.lookup.{LookupOptions, LookupStoreFactory}
import lamina.lookup.cache.CacheManager

/** Factory of hash lookup files; a file's pages of `cache-page-size` (as it was written) are the unit of
 *  checksums and caching. */
final class HashLookupStoreFactory(options: LookupOptions, cacheManager: CacheManager) extends LookupStoreFactory {
  override def createWriter(file: File, expectedEntries: Long): HashLookupStoreWriter =
    new HashLookupStoreWriter(file, options.cachePageSize, expectedEntries)

  override def createReader(file: File): HashLookupStoreReader =
    new HashLookupStoreReader(file, cacheManager)
}
