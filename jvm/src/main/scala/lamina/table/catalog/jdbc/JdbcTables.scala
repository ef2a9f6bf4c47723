package lamina.table.catalog.jdbc

/** The tables of Paimon 1.4's JDBC catalog, with its table and column names, so that Paimon's
 *  `JdbcCatalog` configured with the same `uri` and `catalog-key` sees the same databases and tables.
 *
 *  - `paimon_tables(catalog_key, database_name, table_name)`: one row per table, primary key on all three;
 *  - `paimon_database_properties(catalog_key, database_name, property_key, property_value)`: a database
 *    exists when it has a property row or a table row; Paimon writes `exists = true` and `location` on
 *    create, so an empty database still has rows;
 *  - `paimon_table_properties(catalog_key, database_name, table_name, property_key, property_value)`:
 *    with `sync-all-properties`, a table's options and keys ([[lamina.table.catalog.TableProperties]]),
 *    replaced by each ALTER TABLE of its main branch;
 *  - `paimon_distributed_locks`: the commit lock's table ([[JdbcCommitLock]]), created with `lock.enabled`. */
object JdbcTables {
  val Tables = "paimon_tables"
  val DatabaseProperties = "paimon_database_properties"
  val TableProperties = "paimon_table_properties"

  /** The property Paimon writes so that a database without tables still has a row. */
  val ExistsProperty = "exists"

  val Create: Seq[(String, String)] = Seq(
    Tables -> (s"CREATE TABLE $Tables (catalog_key VARCHAR(255) NOT NULL, database_name VARCHAR(255) NOT NULL, " +
      "table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))"),
    DatabaseProperties -> (s"CREATE TABLE $DatabaseProperties (catalog_key VARCHAR(255) NOT NULL, " +
      "database_name VARCHAR(255) NOT NULL, property_key VARCHAR(255), property_value VARCHAR(1000), " +
      "PRIMARY KEY (catalog_key, database_name, property_key))"),
    TableProperties -> (s"CREATE TABLE $TableProperties (catalog_key VARCHAR(255) NOT NULL, " +
      "database_name VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, property_key VARCHAR(255) NOT NULL, " +
      "property_value VARCHAR(1000), PRIMARY KEY (catalog_key, database_name, table_name, property_key))")
  )

  val ListTableDatabases = s"SELECT DISTINCT database_name FROM $Tables WHERE catalog_key = ?"
  val ListPropertyDatabases = s"SELECT DISTINCT database_name FROM $DatabaseProperties WHERE catalog_key = ?"
  val TableDatabase = s"SELECT database_name FROM $Tables WHERE catalog_key = ? AND database_name = ? LIMIT 1"
  val PropertyDatabase =
    s"SELECT database_name FROM $DatabaseProperties WHERE catalog_key = ? AND database_name = ? LIMIT 1"
  val DatabasePropertiesOf =
    s"SELECT property_key, property_value FROM $DatabaseProperties WHERE catalog_key = ? AND database_name = ?"
  def insertDatabaseProperties(n: Int): String =
    s"INSERT INTO $DatabaseProperties (catalog_key, database_name, property_key, property_value) VALUES " +
      Seq.fill(n)("(?,?,?,?)").mkString(",")
  val DeleteDatabaseProperties = s"DELETE FROM $DatabaseProperties WHERE catalog_key = ? AND database_name = ?"
  val DeleteDatabaseTables = s"DELETE FROM $Tables WHERE catalog_key = ? AND database_name = ?"

  val ListTables = s"SELECT table_name FROM $Tables WHERE catalog_key = ? AND database_name = ? ORDER BY table_name"
  val GetTable = s"SELECT table_name FROM $Tables WHERE catalog_key = ? AND database_name = ? AND table_name = ?"
  val InsertTable = s"INSERT INTO $Tables (catalog_key, database_name, table_name) VALUES (?,?,?)"
  val DeleteTable = s"DELETE FROM $Tables WHERE catalog_key = ? AND database_name = ? AND table_name = ?"
  val RenameTable = s"UPDATE $Tables SET database_name = ?, table_name = ? " +
    "WHERE catalog_key = ? AND database_name = ? AND table_name = ?"

  def insertTableProperties(n: Int): String =
    s"INSERT INTO $TableProperties (catalog_key, database_name, table_name, property_key, property_value) VALUES " +
      Seq.fill(n)("(?,?,?,?,?)").mkString(",")
  val TablePropertiesOf = s"SELECT property_key, property_value FROM $TableProperties " +
    "WHERE catalog_key = ? AND database_name = ? AND table_name = ?"
  val DeleteTableProperties =
    s"DELETE FROM $TableProperties WHERE catalog_key = ? AND database_name = ? AND table_name = ?"
  val DeleteDatabaseTableProperties = s"DELETE FROM $TableProperties WHERE catalog_key = ? AND database_name = ?"
  val RenameTableProperties = s"UPDATE $TableProperties SET database_name = ?, table_name = ? " +
    "WHERE catalog_key = ? AND database_name = ? AND table_name = ?"
}
