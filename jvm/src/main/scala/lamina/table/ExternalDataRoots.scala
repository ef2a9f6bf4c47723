package lamina.table

import org.apache.hadoop.fs.Path

import lamina.errors.BadInputException
import lamina.io.PathNames
import lamina.table.options.{CoreOptions, ExternalPathStrategy}

/** The roots outside the table's directory where a table's writers put new data files, resolved from
 *  `data-file.external-paths` and its strategy as Paimon resolves them: none when the strategy is none
 *  or no root is listed; with specific-fs, the roots whose scheme is the option's (any case); else
 *  every root, in the order given. Each root is a whole URI with a scheme and an absolute path: a
 *  relative root would land wherever the writing process runs. */
object ExternalDataRoots {

  def of(options: Map[String, String], table: String): Seq[Path] = {
    val listed = CoreOptions.DataFileExternalPaths.get(options).getOrElse(Nil)
    val strategy = CoreOptions.DataFileExternalPathsStrategy.ofTable(options, table)
    if (listed.isEmpty || strategy == ExternalPathStrategy.NoExternal) return Nil
    val roots = checkedAll(listed, table)
    strategy match {
      case ExternalPathStrategy.SpecificFs =>
        val key = CoreOptions.DataFileExternalPathsSpecificFs.key
        val scheme = CoreOptions.DataFileExternalPathsSpecificFs.get(options).map(_.trim).filter(_.nonEmpty)
          .getOrElse(throw new BadInputException(s"Table $table: option '$key' must name a scheme (s3, oss, file, ...) " +
              s"when '${CoreOptions.DataFileExternalPathsStrategy.key}' is '${ExternalPathStrategy.SpecificFs}'"))
        val matching = roots.filter(_.toUri.getScheme.equalsIgnoreCase(scheme))
        if (matching.isEmpty)
          throw BadInputException.invalidOption(key, scheme,
            s"no root of '${CoreOptions.DataFileExternalPaths.key}' (${listed.mkString(", ")}) has this scheme",
            Some(table))
        matching
      case _ => roots
    }
  }

  /** Every root `data-file.external-paths` lists, whatever the strategy: where files of the table may
   *  lie (orphan-file removal walks them; DROP TABLE deletes them, as Paimon does). */
  def listed(options: Map[String, String], table: String): Seq[Path] =
    checkedAll(CoreOptions.DataFileExternalPaths.get(options).getOrElse(Nil), table)

  private def checkedAll(roots: Seq[String], table: String): Seq[Path] = roots.map(checked(_, table))

  private def checked(root: String, table: String): Path = {
    def refuse(why: String): Nothing =
      throw BadInputException.invalidOption(CoreOptions.DataFileExternalPaths.key, root, why, Some(table))
    val p =
      try PathNames.of(root)
      catch { case _: IllegalArgumentException => refuse("a root's path must be absolute") }
    val uri = p.toUri
    if (uri.getScheme == null) refuse("a root must be a URI with a scheme, such as file:///data/t or s3://bucket/t")
    val path = Option(uri.getPath).getOrElse("")
    if (if (path.isEmpty) uri.getAuthority == null else !path.startsWith("/")) refuse("a root's path must be absolute")
    p
  }
}
