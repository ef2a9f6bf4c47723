package lamina.format

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.types.StructType
import org.scalatest.funsuite.AnyFunSuite

import lamina.io.SerializableConfiguration

class DataFileFormatTest extends AnyFunSuite {
  test("a data file's format is the one its name ends with, whatever the table option says") {
    assert(DataFileFormat.ofFile("data-1b2c-0.avro") === Some(DataFileFormat.Avro))
    assert(DataFileFormat.ofFile("/w/db.db/t/bucket-0/data-1b2c-0.orc") === Some(DataFileFormat.Orc))
    assert(DataFileFormat.ofFile("data-1b2c-0.zstd.parquet") === Some(DataFileFormat.Parquet))
    assert(DataFileFormat.ofFile("data-1b2c-0.json") === None)
    assert(DataFileFormat.ofFile("data") === None)
  }

  test("the writers of a level whose format differs are its own; other levels take the table's") {
    val conf = new SerializableConfiguration(new Configuration())
    def writers(f: DataFileFormat) = DataFileWriters((_, _) => throw new IllegalStateException, conf, new StructType(), f)
    val avro = writers(DataFileFormat.Avro)
    val table = writers(DataFileFormat.Parquet).copy(byLevel = Map(0 -> avro))
    assert(table.forLevel(0) eq avro)
    assert(table.forLevel(5).format === DataFileFormat.Parquet)
  }
}
