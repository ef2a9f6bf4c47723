package lamina.format

/** The format of a table's data files (table option `file.format`); `name` is also the files'
 *  extension. */
sealed abstract class DataFileFormat(val name: String) extends Product with Serializable {
  override def toString: String = name
}

object DataFileFormat {
  case object Parquet extends DataFileFormat("parquet")
  case object Orc extends DataFileFormat("orc")
  case object Avro extends DataFileFormat("avro")

  val All: Seq[DataFileFormat] = Seq(Parquet, Orc, Avro)

  /** The format of a data file named `name`, by its extension (None: no format's). */
  def ofFile(name: String): Option[DataFileFormat] = {
    val dot = name.lastIndexOf('.')
    if (dot < 0) None else All.find(_.name == name.substring(dot + 1))
  }
}
