package lamina.table.catalog.jdbc

import java.lang.reflect.{InvocationHandler, InvocationTargetException, Method, Proxy}
import java.sql.{Connection, Driver, DriverManager, DriverPropertyInfo, SQLException}
import java.util.Properties
import java.util.concurrent.atomic.AtomicInteger
import java.util.logging.Logger

import org.sqlite.{JDBC => SqliteDriver}

/** A JDBC driver for `jdbc:dropping:<sqlite file>` whose connections are SQLite's, except that the
 *  "server" can go away: after [[dropAll]] every connection opened so far fails its next statement as
 *  PostgreSQL's driver does for a socket the server closed (SQLState 08006, the connection then
 *  closed); while [[refusing]] is set, new connections are refused (SQLState 08001). Registered with
 *  `DriverManager` on first use, which is how the JDBC metastore reaches drivers it does not name. */
object DroppingDriver extends Driver {
  val Prefix = "jdbc:dropping:"

  @volatile var refusing = false
  val opened = new AtomicInteger()
  private val generation = new AtomicInteger()

  DriverManager.registerDriver(this)

  def uri(file: String): String = Prefix + file

  /** Every connection opened until now is dropped. */
  def dropAll(): Unit = generation.incrementAndGet()

  def reset(): Unit = {
    refusing = false
    opened.set(0)
    dropAll()
  }

  override def connect(url: String, info: Properties): Connection = {
    if (!acceptsURL(url)) return null
    if (refusing) throw new SQLException("Connection to the catalog database refused", "08001")
    opened.incrementAndGet()
    val real = new SqliteDriver().connect("jdbc:sqlite:" + url.stripPrefix(Prefix), info)
    val born = generation.get()
    var closed = false
    val handler: InvocationHandler = (_: Any, m: Method, args: Array[AnyRef]) =>
      m.getName match {
        case "isClosed" => Boolean.box(closed || real.isClosed)
        case "close" => closed = true; real.close(); null
        case _ if born != generation.get() && !closed =>
          closed = true
          real.close()
          throw new SQLException("An I/O error occurred while sending to the backend.", "08006")
        case _ =>
          try m.invoke(real, Option(args).getOrElse(Array.empty[AnyRef]): _*)
          catch { case e: InvocationTargetException => throw e.getCause }
      }
    Proxy.newProxyInstance(getClass.getClassLoader, Array(classOf[Connection]), handler).asInstanceOf[Connection]
  }

  override def acceptsURL(url: String): Boolean = url.startsWith(Prefix)
  override def getPropertyInfo(url: String, info: Properties): Array[DriverPropertyInfo] = Array.empty
  override def getMajorVersion: Int = 1
  override def getMinorVersion: Int = 0
  override def jdbcCompliant(): Boolean = false
  override def getParentLogger: Logger = Logger.getGlobal
}
