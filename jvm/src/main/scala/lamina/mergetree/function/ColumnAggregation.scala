package lamina.mergetree.function

import lamina.errors.BadInputException

/** One column's aggregate function with its retract policy: `ignoreRetract` skips -U/-D records,
 *  otherwise a function that cannot retract fails naming the table, column and option to set. */
private[mergetree] final class ColumnAggregation(
    val fn: FieldAggregator,
    ignoreRetract: Boolean,
    column: String,
    table: String) {

  def reset(): Unit = fn.reset()

  def agg(acc: Any, input: Any): Any = fn.agg(acc, input)

  def aggReversed(acc: Any, input: Any): Any = fn.aggReversed(acc, input)

  def retract(acc: Any, input: Any): Any = { check(); if (ignoreRetract) acc else fn.retract(acc, input) }

  def retractReversed(acc: Any, input: Any): Any = { check(); if (ignoreRetract) acc else fn.retractReversed(acc, input) }

  /** Whether a -U/-D record is honoured (applied or ignored on purpose) rather than an error. */
  def acceptsRetract: Boolean = ignoreRetract || fn.supportsRetract

  private def check(): Unit =
    if (!acceptsRetract) throw new BadInputException(
      s"Table $table: aggregate function '${fn.name}' of column '$column' cannot retract a -U/-D record; " +
        s"set 'fields.$column.ignore-retract'='true' to ignore such records for this column")
}
