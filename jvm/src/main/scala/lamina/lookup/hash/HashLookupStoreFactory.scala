package lamina.lookup.hash

import java.io.File

import lamina.lookup.{LookupOptions, LookupStoreFactory}
import lamina.lookup.cache.CacheManager

/** Factory of hash lookup files; pages of `cache-page-size` are the unit of caching. */
final class HashLookupStoreFactory(options: LookupOptions, cacheManager: CacheManager) extends LookupStoreFactory {
  override def createWriter(file: File, expectedEntries: Long): HashLookupStoreWriter =
    new HashLookupStoreWriter(file, expectedEntries)

  override def createReader(file: File): HashLookupStoreReader =
    new HashLookupStoreReader(file, cacheManager, options.cachePageSize)
}
