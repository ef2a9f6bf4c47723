package lamina.lookup.cache

/** Identity of one cached page. Keys compare by value, so every reader of the same file shares pages.
 *  `file` is the absolute path; contract: a file is immutable while any page of it is cached (readers
 *  invalidate their pages on close). `isIndex` routes the page to the high-priority pool. */
sealed trait CacheKey {
  def file: String
  def isIndex: Boolean
}

/** A byte range of a file: a block of a sort lookup file, a slot page of a hash lookup file. */
final case class PositionCacheKey(file: String, offset: Long, length: Int, isIndex: Boolean) extends CacheKey {
  // Computed once: keys are hashed on every cache access, and the generated hash boxes each field.
  override val hashCode: Int =
    ((file.hashCode * 31 + java.lang.Long.hashCode(offset)) * 31 + length) * 31 + (if (isIndex) 1 else 0)
}

/** Page `pageIndex` of a file cut into pages of `pageSize` bytes. */
final case class PageIndexCacheKey(file: String, pageSize: Int, pageIndex: Int, isIndex: Boolean) extends CacheKey {
  override val hashCode: Int = ((file.hashCode * 31 + pageSize) * 31 + pageIndex) * 31 + (if (isIndex) 3 else 2)
}

object CacheKey {
  def forPosition(file: String, offset: Long, length: Int, isIndex: Boolean): CacheKey =
    PositionCacheKey(file, offset, length, isIndex)

  def forPageIndex(file: String, pageSize: Int, pageIndex: Int): CacheKey =
    PageIndexCacheKey(file, pageSize, pageIndex, isIndex = false)
}
