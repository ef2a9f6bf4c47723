package lamina.table.catalog.jdbc

import java.sql.SQLException

import lamina.errors.StorageException

/** A statement of the JDBC metastore that the database did not carry out (the server unreachable or
 *  gone mid-statement, a catalog table missing, ...), reported as a [[StorageException]] naming what
 *  was being done, the catalog and the metastore's `uri`, with the driver's reason. Nothing that the
 *  failed statement would have changed has changed. */
object JdbcFailure {

  def apply(catalog: String, uri: String, what: String, cause: SQLException, consequence: String = ""): StorageException =
    new StorageException(s"$what in catalog '$catalog' through its JDBC metastore at", uri,
      Option(cause.getMessage).getOrElse(cause.getClass.getSimpleName) + consequence, cause)

  /** Runs `body`, reporting an `SQLException` it throws as [[apply]] does. */
  def reporting[T](catalog: String, uri: String, what: => String)(body: => T): T =
    try body
    catch { case e: SQLException => throw JdbcFailure(catalog, uri, what, e) }
}
