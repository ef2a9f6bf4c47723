package lamina.table.scan

import org.apache.hadoop.fs.Path

import lamina.format.fileindex.{BloomFilterIndex, DataFileIndexWriter, FastHash, FileIndexFile}
import lamina.io.{FileIO, PathNames}
import lamina.table.manifest.DataFileMeta
import lamina.table.predicate.{And, EqualTo, In, Or, Predicate, PredicateEval}
import lamina.table.schema.TableSchema
import lamina.types.{CharType, SparkTypes}

/** Decides from a data file's index ([[FileIndexFile]], embedded in its manifest entry or in its
 *  `<file>.index` extra file) whether filters might hold for a row of the file: false only when a bloom
 *  filter proves that no row holds the value of an `=` or of every value of an `IN` on an indexed
 *  column (`AND` of the two sides, `OR` of either). Anything else might match. Columns are matched by
 *  field id from the table's current schema to the file's, and only where their types agree. A corrupt
 *  index is a [[lamina.errors.CorruptFileException]] naming it, never a skipped file. */
final class FileIndexFilter(fileIO: FileIO, schema: TableSchema) {

  /** Whether a row of `f`, written with `fileSchema`, in directory `dir`, might satisfy every filter. */
  def mightMatch(f: DataFileMeta, dir: Path, fileSchema: TableSchema, filters: Seq[Predicate]): Boolean =
    load(f, dir) match {
      case None => true
      case Some(index) => filters.forall(test(_, index, fileSchema))
    }

  private def load(f: DataFileMeta, dir: Path): Option[FileIndexFile] =
    f.embeddedIndex.map(FileIndexFile.decode(s"${PathNames.child(dir, f.fileName, "data file")} (embedded file index)", _))
      .orElse(f.extraFiles.find(_.endsWith(DataFileIndexWriter.Suffix)).map { name =>
        val path = PathNames.child(dir, name, "file index")
        FileIndexFile.decode(path.toString, fileIO.readBytes(path))
      })

  private def test(p: Predicate, index: FileIndexFile, fileSchema: TableSchema): Boolean = p match {
    case And(l, r) => test(l, index, fileSchema) && test(r, index, fileSchema)
    case Or(l, r) => test(l, index, fileSchema) || test(r, index, fileSchema)
    case EqualTo(a, v) => mightHold(a, Seq(v), index, fileSchema)
    case In(a, vs) => vs.isEmpty || mightHold(a, vs.toSeq, index, fileSchema)
    case _ => true
  }

  /** Whether column `a` might hold one of `values` in the file. */
  private def mightHold(a: String, values: Seq[Any], index: FileIndexFile, fileSchema: TableSchema): Boolean = {
    val bloom = for {
      current <- schema.field(a)
      if !current.dataType.isInstanceOf[CharType] // CHAR literals and stored values differ in padding
      written <- fileSchema.fields.find(_.id == current.id)
      if written.dataType.withNullable(true) == current.dataType.withNullable(true)
      bytes <- index.index(written.name, BloomFilterIndex.IndexType).flatten
      hash <- FastHash.of(current.dataType)
    } yield (BloomFilterIndex.decode(index.source, written.name, bytes), hash)
    bloom match {
      case None => true
      case Some((filter, hash)) =>
        val sparkType = SparkTypes.toSpark(schema.field(a).get.dataType)
        values.exists { v =>
          val internal = if (v == null) null else PredicateEval.toInternal(v, sparkType)
          // a literal not of the column's type (or NULL) proves nothing
          internal == null || (try filter.mightContain(hash(internal))
          catch { case _: ClassCastException => true })
        }
    }
  }
}
