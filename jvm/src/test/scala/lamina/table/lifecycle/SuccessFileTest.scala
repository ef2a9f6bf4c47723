package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException

class SuccessFileTest extends AnyFunSuite {

  test("a success file is Paimon's JSON, read strictly") {
    assert(SuccessFile(5, 9).toJson === """{"creationTime":5,"modificationTime":9}""")
    assert(SuccessFile.fromJson("""{"modificationTime": 9, "creationTime": 5}""", "p") === SuccessFile(5, 9))
    for (bad <- Seq("""{"creationTime":5}""", """{"creationTime":"x","modificationTime":1}""", "[]", "{", "null"))
      intercept[CorruptFileException](SuccessFile.fromJson(bad, "p"))
  }

  test("marking again keeps the creation time and never goes back before it") {
    assert(SuccessFile(5, 9).touched(20) === SuccessFile(5, 20))
    assert(SuccessFile(5, 9).touched(3) === SuccessFile(5, 5))
  }
}
