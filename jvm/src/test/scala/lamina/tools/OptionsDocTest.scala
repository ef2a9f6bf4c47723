package lamina.tools

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.options.CoreOptions

class OptionsDocTest extends AnyFunSuite {
  test("docs/options.md is the rendering of the registry") {
    val path = Paths.get("docs/options.md")
    assert(Files.exists(path), "docs/options.md is missing: run `make docs`")
    val onDisk = new String(Files.readAllBytes(path), StandardCharsets.UTF_8)
    assert(onDisk == OptionsDoc.render(), "docs/options.md is out of date: run `make docs`")
  }

  test("every registered option has a documented row") {
    val text = OptionsDoc.render()
    CoreOptions.all.foreach(d => assert(text.contains(s"| `${d.key}` |"), d.key))
  }
}
