package lamina.table.options

import lamina.errors.BadInputException
import lamina.lookup.LookupOptions

/** The lookup store's options (`lookup.*`, `cache-page-size`) as table options, so that a table
 *  accepts and documents them. The lookup library defines and parses them itself (it depends on
 *  nothing of the table layer); this only wraps its definitions. */
object LookupStoreOptions {

  val all: Seq[OptionDef[String]] = LookupOptions.definitions.map { d =>
    val kind = new OptionKind[String] {
      override def name: String = d.valueType
      override def parse(s: String): Either[String, String] =
        try { LookupOptions.fromMap(Map(d.key -> s)); Right(s) }
        catch { case _: BadInputException => Left(s"expected ${d.valueType}") }
    }
    OptionDef(d.key, kind, Some(d.default), d.doc)
  }

  def register(): Unit = all.foreach(CoreOptions.registerExternal)
}
