package lamina.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis._
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.table.{ChangelogProducerRules, DeletionVectorRules, Identifiers}
import lamina.table.catalog.{Metastore, Metastores}
import lamina.table.branch.BranchManager
import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.spark.procedures.Procedures
import lamina.spark.system.{GlobalSystemTables, SystemTables}
import lamina.table.schema.SchemaEvolution

/** The Spark catalog over a metastore (see [[Metastores]]): namespaces are its databases, tables are
 *  Paimon table directories under `<warehouse>/<db>.db/`. Configure as
 *  `spark.sql.catalog.<name>=lamina.spark.LaminaCatalog` with `spark.sql.catalog.<name>.warehouse=PATH`
 *  and, for a JDBC metastore, `metastore=jdbc` and `uri=jdbc:...`. This class translates Spark's calls
 *  and errors; what exists, and every change to it, goes through the metastore. */
class LaminaCatalog extends TableCatalog with SupportsNamespaces with ProcedureCatalog with FunctionCatalog {
  private var catalogName: String = _
  private var warehouse: Metastore = _
  private var tableDefaults: Map[String, String] = Map.empty
  private var catalogOptions: Map[String, String] = Map.empty

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    val wh = options.get("warehouse")
    if (wh == null || wh.trim.isEmpty)
      throw new BadInputException(s"Catalog '$name' needs the option 'warehouse': set spark.sql.catalog.$name.warehouse=PATH")
    CatalogOptions.check(name, options.asCaseSensitiveMap().asScala.toMap)
    catalogOptions = options.asCaseSensitiveMap().asScala.toMap
    tableDefaults = CatalogOptions.tableDefaults(catalogOptions)
    warehouse = Metastores.open(name, catalogOptions, SessionHadoopConf(SparkSession.active))
  }

  override def name(): String = catalogName

  override def capabilities(): util.Set[TableCatalogCapability] =
    Set(TableCatalogCapability.SUPPORT_COLUMN_DEFAULT_VALUE).asJava

  def laminaWarehouse: Metastore = warehouse

  // ---- namespaces ----

  override def listNamespaces(): Array[Array[String]] = warehouse.listDatabases().map(d => Array(d)).toArray

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = {
    requireNamespace(namespace)
    Array.empty
  }

  /** `sys`, the database of the catalog-wide system tables, always exists (as in Paimon). */
  override def namespaceExists(namespace: Array[String]): Boolean =
    namespace.length == 1 && (namespace.head == GlobalSystemTables.Database || warehouse.databaseExists(namespace.head))

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] = {
    requireNamespace(namespace)
    if (namespace.head == GlobalSystemTables.Database)
      Map(Metastore.LocationProperty -> warehouse.databasePath(namespace.head).toString).asJava
    else warehouse.databaseProperties(namespace.head).asJava
  }

  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit = {
    checkNamespaceShape(namespace)
    if (namespace.head == GlobalSystemTables.Database)
      throw new BadInputException(s"Database '${GlobalSystemTables.Database}' is reserved for the catalog's system tables")
    if (warehouse.databaseExists(namespace.head)) throw new NamespaceAlreadyExistsException(namespace)
    try warehouse.createDatabase(namespace.head, metadata.asScala.toMap)
    catch { case _: AlreadyExistsException => throw new NamespaceAlreadyExistsException(namespace) }
  }

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit = {
    requireNamespace(namespace)
    throw new BadInputException(s"Namespace ${namespace.mkString(".")} has no properties to alter")
  }

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = {
    requireNamespace(namespace)
    if (namespace.head == GlobalSystemTables.Database)
      throw new BadInputException(s"Database '${GlobalSystemTables.Database}' is reserved for the catalog's system tables")
    val db = namespace.head
    if (!cascade && warehouse.listTables(db).nonEmpty) throw new NonEmptyNamespaceException(namespace)
    warehouse.dropDatabase(db)
    true
  }

  private def checkNamespaceShape(namespace: Array[String]): Unit = {
    if (namespace.length != 1)
      throw new BadInputException(s"Namespace ${namespace.mkString(".")} must have exactly one level (a database)")
    Identifiers.check(namespace.head, "database", Metastore.DbSuffix)
  }

  private def requireNamespace(namespace: Array[String]): Unit =
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)

  // ---- tables ----

  override def listTables(namespace: Array[String]): Array[Identifier] = {
    requireNamespace(namespace)
    val global = if (namespace.head == GlobalSystemTables.Database) GlobalSystemTables.Names else Seq.empty
    val tables = if (warehouse.databaseExists(namespace.head)) warehouse.listTables(namespace.head) else Seq.empty
    (global ++ tables).distinct.map(t => Identifier.of(namespace, t)).toArray
  }

  override def loadTable(ident: Identifier): Table = loadAt(ident, None, None)

  override def loadTable(ident: Identifier, version: String): Table = loadAt(ident, Some(version), None)

  override def loadTable(ident: Identifier, timestamp: Long): Table =
    loadAt(ident, None, Some(timestamp / 1000))

  private def loadAt(ident: Identifier, version: Option[String], timestampMillis: Option[Long]): Table = {
    if (GlobalSystemTables.isGlobal(ident.namespace(), ident.name()))
      return GlobalSystemTables.load(ident.name(), warehouse, catalogOptions, show(ident))
    val (base, branch, system) = BranchManager.splitName(ident.name())
    val tableIdent = Identifier.of(ident.namespace(), ident.name().stripSuffix(system.map("$" + _).getOrElse("")))
    val table =
      try branch.foldLeft(warehouse.loadTable(dbOf(tableIdent), base))(_.onBranch(_))
      catch {
        case _: NotFoundException => throw new NoSuchTableException(ident)
      }
    val pinned = version match {
      case Some(v) => Some(TimeTravel.resolveVersion(table, v))
      case None => TimeTravel.resolve(table, None, timestampMillis)
    }
    system match {
      case Some(kind) => SystemTables.load(kind, table, pinned, show(ident))
      case None => new LaminaTable(table, pinned, show(tableIdent))
    }
  }

  override def tableExists(ident: Identifier): Boolean =
    GlobalSystemTables.isGlobal(ident.namespace(), ident.name()) || ident.namespace().length == 1 && {
      val (base, branch, system) = BranchManager.splitName(ident.name())
      val db = ident.namespace().head
      warehouse.tableExists(db, base) && system.forall(SystemTables.isKnown) &&
      branch.forall(b => warehouse.loadTable(db, base).branchManager.exists(b))
    }

  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val db = dbOf(ident)
    if (!warehouse.databaseExists(db)) throw new NoSuchNamespaceException(ident.namespace())
    if (warehouse.tableExists(db, ident.name())) throw new TableAlreadyExistsException(ident)
    val tableSchema = CreateTableSpec.toSchema(show(ident), schema, partitions, tableDefaults ++ properties.asScala.toMap)
    val table =
      try warehouse.createTable(db, ident.name(), tableSchema)
      catch { case _: AlreadyExistsException => throw new TableAlreadyExistsException(ident) }
    new LaminaTable(table, None, show(ident))
  }

  /** ALTER TABLE `t` or `t$branch_b` (the branch's own schema, as in Paimon). */
  override def alterTable(ident: Identifier, changes: TableChange*): Table = {
    val (base, branch, _) = BranchManager.splitName(ident.name())
    val table =
      try branch.foldLeft(warehouse.loadTable(dbOf(ident), base))(_.onBranch(_))
      catch {
        case _: NotFoundException => throw new NoSuchTableException(ident)
      }
    val schemaChanges = AlterTableSpec.toChanges(show(ident), changes)
    // dry run: the merge engine must accept the new schema before it is committed
    val dryRun = SchemaEvolution(table.schema, schemaChanges, show(ident), System.currentTimeMillis())
    CreateTableSpec.checkMergeEngine(dryRun, show(ident))
    DeletionVectorRules.checkChange(table, dryRun)
    ChangelogProducerRules.checkChange(table, dryRun)
    val next = warehouse.alterTable(table, schemaChanges)
    new LaminaTable(table.withSchema(next), None, show(ident))
  }

  override def dropTable(ident: Identifier): Boolean =
    ident.namespace().length == 1 && warehouse.dropTable(ident.namespace().head, ident.name())

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit = {
    if (!tableExists(oldIdent)) throw new NoSuchTableException(oldIdent)
    val ns = newIdent.namespace()
    val target =
      if (ns.isEmpty) Identifier.of(oldIdent.namespace(), newIdent.name())
      else if (ns.length == 2 && ns.head == catalogName) Identifier.of(ns.tail, newIdent.name())
      else newIdent
    if (tableExists(target)) throw new TableAlreadyExistsException(target)
    if (!namespaceExists(target.namespace())) throw new NoSuchNamespaceException(target.namespace())
    warehouse.renameTable(dbOf(oldIdent), oldIdent.name(), dbOf(target), target.name())
  }

  // ---- procedures ----

  override def loadProcedure(ident: Identifier): UnboundProcedure = Procedures.load(ident, this)

  override def listFunctions(namespace: Array[String]): Array[Identifier] =
    BucketTransformFunction.names.map(n => Identifier.of(namespace, n)).toArray

  override def loadFunction(ident: Identifier): org.apache.spark.sql.connector.catalog.functions.UnboundFunction =
    BucketTransformFunction.load(ident)

  private def dbOf(ident: Identifier): String = {
    if (ident.namespace().length != 1)
      throw new NoSuchTableException(ident)
    ident.namespace().head
  }

  private def show(ident: Identifier): String = (ident.namespace() :+ ident.name()).mkString(".")
}
