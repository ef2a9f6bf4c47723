package lamina.table.scan

import org.apache.hadoop.fs.Path
import org.roaringbitmap.RoaringBitmap

import lamina.format.fileindex.{BitmapIndex, BitmapKey, BloomFilterIndex, DataFileIndexWriter, FastHash, FileIndexFile}
import lamina.io.{FileIO, PathNames}
import lamina.table.manifest.DataFileMeta
import lamina.table.predicate.{And, EqualTo, In, IsNotNull, IsNull, Not, Or, Predicate, PredicateEval}
import lamina.table.schema.TableSchema
import lamina.types.{CharType, DataType, SparkTypes}

/** Decides from a data file's index ([[FileIndexFile]], embedded in its manifest entry or in its
 *  `<file>.index` extra file) whether filters might hold for a row of the file: false only when an
 *  index proves that no row holds. A bloom filter proves it for an `=` whose value it does not hold,
 *  or an `IN` none of whose values it holds; a bitmap index for those, for `IS NULL` with no NULL row,
 *  `IS NOT NULL` with only NULL rows, and `<>` / `NOT IN` where every row holds the value(s) or NULL. `AND` of
 *  the two sides, `OR` of either; where a column has both indexes, either may prove it. Anything else
 *  might match. Columns are matched by field id from the table's current schema to the file's, and
 *  only where their types agree. A corrupt index is a [[lamina.errors.CorruptFileException]] naming
 *  it, never a skipped file. */
final class FileIndexFilter(fileIO: FileIO, schema: TableSchema) {

  /** Whether a row of `f`, written with `fileSchema`, lying in directory `dir`, might satisfy every filter. */
  def mightMatch(f: DataFileMeta, dir: Path, fileSchema: TableSchema, filters: Seq[Predicate]): Boolean =
    FileIndexFilter.load(fileIO, f, dir) match {
      case None => true
      case Some(index) => filters.forall(test(_, index, fileSchema))
    }

  private def test(p: Predicate, index: FileIndexFile, fileSchema: TableSchema): Boolean = p match {
    case And(l, r) => test(l, index, fileSchema) && test(r, index, fileSchema)
    case Or(l, r) => test(l, index, fileSchema) || test(r, index, fileSchema)
    case EqualTo(a, v) => mightHold(a, Seq(v), index, fileSchema)
    case In(a, vs) => vs.isEmpty || mightHold(a, vs.toSeq, index, fileSchema)
    case IsNull(a) => bitmap(a, index, fileSchema).forall { case (b, _, _) => !b.rows(null).isEmpty }
    case IsNotNull(a) => bitmap(a, index, fileSchema).forall { case (b, _, _) => b.rows(null).getCardinality < b.rowCount }
    case Not(EqualTo(a, v)) => mightDiffer(a, Seq(v), index, fileSchema)
    case Not(In(a, vs)) if vs.nonEmpty => mightDiffer(a, vs.toSeq, index, fileSchema)
    case _ => true
  }

  /** Whether column `a` might hold one of `values` in the file: false when its bloom filter or its
   *  bitmap index proves that it holds none. */
  private def mightHold(a: String, values: Seq[Any], index: FileIndexFile, fileSchema: TableSchema): Boolean = {
    val bloomProves = column(a, fileSchema).exists { case (current, written) =>
      (for {
        bytes <- index.index(written, BloomFilterIndex.IndexType).flatten
        hash <- FastHash.of(current)
      } yield {
        val filter = BloomFilterIndex.decode(index.source, written, bytes)
        values.forall { v =>
          internal(v, current).exists(i =>
            try sqlEqual(i).forall(e => !filter.mightContain(hash(e)))
            catch { case _: ClassCastException => false })
        }
      }).getOrElse(false)
    }
    !bloomProves && bitmap(a, index, fileSchema).forall { case (b, current, keys) =>
      values.exists(v => rowsOf(v, b, current, keys).forall(!_.isEmpty))
    }
  }

  /** Whether a row of column `a` might hold a value other than `values` (and not NULL): false when
   *  its bitmap index shows every row holding one of them or NULL. (Paimon counts only the values'
   *  rows; a NULL row satisfies no `<>` either.) */
  private def mightDiffer(a: String, values: Seq[Any], index: FileIndexFile, fileSchema: TableSchema): Boolean =
    bitmap(a, index, fileSchema).forall { case (b, current, keys) =>
      val rows = values.map(rowsOf(_, b, current, keys))
      rows.exists(_.isEmpty) || RoaringBitmap.or(rows.flatten :+ b.rows(null): _*).getCardinality < b.rowCount
    }

  /** The rows of bitmap index `b` holding `v`; None when the literal proves nothing (NULL, another
   *  type). */
  private def rowsOf(v: Any, b: BitmapIndex, t: DataType, keys: BitmapKey): Option[RoaringBitmap] =
    internal(v, t).flatMap(i =>
      try Some(sqlEqual(i).map(keys.key))
      catch { case _: ClassCastException => None })
      .map(ks => RoaringBitmap.or(ks.map(b.rows): _*))

  /** The stored values SQL finds equal to Catalyst value `i`: both zeros for a floating-point zero
   *  (indexes key and hash them by their bits, which differ), else `i` itself. */
  private def sqlEqual(i: Any): Seq[Any] = i match {
    case f: Float if f == 0f => Seq(0f, -0f)
    case d: Double if d == 0d => Seq(0d, -0d)
    case _ => Seq(i)
  }

  /** Column `a`'s bitmap index in the file, with its current type and keys. */
  private def bitmap(a: String, index: FileIndexFile, fileSchema: TableSchema): Option[(BitmapIndex, DataType, BitmapKey)] =
    for {
      (current, written) <- column(a, fileSchema)
      bytes <- index.index(written, BitmapIndex.IndexType).flatten
      keys <- BitmapKey.of(current)
    } yield (BitmapIndex.decode(index.source, written, keys, bytes), current, keys)

  /** Column `a`'s current type and its name in the file, when it was written with that type. */
  private def column(a: String, fileSchema: TableSchema): Option[(DataType, String)] = for {
    current <- schema.field(a)
    if !current.dataType.isInstanceOf[CharType] // CHAR literals and stored values differ in padding
    written <- fileSchema.fields.find(_.id == current.id)
    if written.dataType.withNullable(true) == current.dataType.withNullable(true)
  } yield (current.dataType, written.name)

  /** `v` as a Catalyst value of type `t`; None for NULL or a literal not of the column's type. */
  private def internal(v: Any, t: DataType): Option[Any] =
    Option(v).flatMap(x => Option(PredicateEval.toInternal(x, SparkTypes.toSpark(t))))
}

object FileIndexFilter {

  /** The file index of data file `f` lying in directory `dir` (its bucket's, or the one under an external
   *  root): embedded in its manifest entry, else its `.index` extra file beside it; None when it has neither. */
  def load(fileIO: FileIO, f: DataFileMeta, dir: Path): Option[FileIndexFile] =
    f.embeddedIndex.map(FileIndexFile.decode(s"${PathNames.child(dir, f.fileName, "data file")} (embedded file index)", _))
      .orElse(f.extraFiles.find(_.endsWith(DataFileIndexWriter.Suffix)).map { name =>
        val path = PathNames.child(dir, name, "file index")
        FileIndexFile.decode(path.toString, fileIO.readBytes(path))
      })
}
