package lamina.spark.read

import org.apache.spark.sql.connector.expressions.{Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.{Predicate => V2Predicate}
import org.apache.spark.sql.types.StructType

import lamina.table.scan.KeySet

/** The runtime filters Spark hands a scan ([[org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering]])
 *  as [[KeySet]]s: `c IN (v, ...)` and `c = v` of a top-level column of `schema`, with literals of the
 *  column's type (Spark's internal values). Anything else is ignored: a runtime filter may only narrow. */
object RuntimeKeyFilters {
  def keySet(p: V2Predicate, schema: StructType): Option[KeySet] =
    if (p.name() != "IN" && p.name() != "=") None
    else
      p.children().toSeq match {
        case (ref: NamedReference) +: literals if ref.fieldNames().length == 1 && literals.nonEmpty =>
          val name = ref.fieldNames()(0)
          schema.fields.find(_.name == name).orElse(schema.fields.find(_.name.equalsIgnoreCase(name)))
            .filter(f => KeySet.supports(f.dataType)).flatMap { f =>
              val values = literals.collect { case l: Literal[_] if l.dataType == f.dataType => l.value: Any }
              if (values.size != literals.size) None else Some(new KeySet(f.name, f.dataType, values.toArray))
            }
        case _ => None
      }
}
