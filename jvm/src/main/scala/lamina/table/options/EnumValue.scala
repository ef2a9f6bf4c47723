package lamina.table.options

/** A value of an enumerated option, known by the text that names it in a table's options. */
abstract class EnumValue(val name: String) extends Product with Serializable {
  final override def toString: String = name
}
