package lamina.tools

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import lamina.table.options.{CoreOptions, HarmlessOptions, TableOperation, UnsupportedFeatures}

/** Generates `docs/options.md` from the option registry: `OptionsDoc.render` is the text, `main`
 *  writes it to the path given (default `docs/options.md`). */
object OptionsDoc {
  def render(): String = {
    val sb = new StringBuilder
    sb.append("# Options\n\n")
    sb.append(
      "Generated from the option registry `lamina.table.options.CoreOptions` by `lamina.tools.OptionsDoc`; do not edit by hand.\n\n")
    sb.append("Table options are set with `TBLPROPERTIES` at `CREATE TABLE` or `ALTER TABLE ... SET TBLPROPERTIES`. ")
    sb.append("The options of scope *per query* may also be set for one read or write (`spark.read.option(...)`, ")
    sb.append("`df.writeTo(...).option(...)`) or for a session (`spark.conf.set(\"spark.lamina.<key>\", ...)`); ")
    sb.append("a value is taken from the query, then the session, then the table, then the default. The options ")
    sb.append("of scope *table* define the table and are refused there. ")
    sb.append("An unknown key is an error that suggests the closest known key. Keys of the form ")
    sb.append("`fields.<column>.<setting>` are accepted for per-column settings.\n\n")
    sb.append("| key | type | default | scope | description |\n|---|---|---|---|---|\n")
    CoreOptions.all.sortBy(_.key).foreach { d =>
      val default = d.default.map(v => s"`$v`").getOrElse("(none)")
      sb.append(s"| `${d.key}` | ${d.kind.name.replace("|", " \\| ")} | $default | ${d.scope.name} | ${d.doc.replace("|", "\\|")} |\n")
    }
    sb.append("\n## Apache Paimon's options that Lamina does not implement\n\n")
    sb.append("A table that Paimon's own writers created may store any of Paimon's options. Each stored key is ")
    sb.append("implemented (the table above), harmless (below: Lamina's reads, writes and compactions give the ")
    sb.append("same result as Paimon's with it), or a feature that Lamina refuses for the operations it would get ")
    sb.append("wrong, naming the option. A key in Paimon's option space that is none of these (a newer Paimon's), and a ")
    sb.append("per-column setting `fields.<column>.<setting>` other than ")
    sb.append(UnsupportedFeatures.ColumnSettings.toSeq.sorted.map(k => s"`$k`").mkString(", "))
    sb.append(", refuse every operation. Keys that are not Paimon's (`owner.team`) are the user's own and kept.\n\n")
    sb.append("### Refused features\n\n| key | feature | refused for |\n|---|---|---|\n")
    UnsupportedFeatures.All.sortBy(_.key).foreach { f =>
      val ops =
        Seq(TableOperation.Read, TableOperation.Write, TableOperation.Compact).filter(f.blocks).map(_.toString.toLowerCase)
      sb.append(s"| `${f.key}` | ${f.name} | ${ops.mkString(", ")} |\n")
    }
    sb.append("\n### Harmless\n\n")
    HarmlessOptions.Groups.foreach { g =>
      sb.append(s"${g.why}\n\n")
      val keys = g.keys.sorted.map(k => s"`$k`") ++ g.prefixes.map(p => s"`$p*`")
      sb.append(keys.mkString(", ")).append("\n\n")
    }
    sb.toString
  }

  def main(args: Array[String]): Unit = {
    val out = Paths.get(args.headOption.getOrElse("docs/options.md"))
    Files.createDirectories(out.toAbsolutePath.getParent)
    Files.write(out, render().getBytes(StandardCharsets.UTF_8))
  }
}
