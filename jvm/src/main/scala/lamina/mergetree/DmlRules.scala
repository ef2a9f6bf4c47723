package lamina.mergetree

import lamina.types.DataField

/** Which row-level DML each merge engine honours; see [[MergeFunctions.unsupportedDml]]. */
private[mergetree] object DmlRules {
  def check(
      op: String,
      updatedColumns: Seq[String],
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      partitionKeys: Seq[String],
      options: Map[String, String],
      table: String): Option[String] = None
}
