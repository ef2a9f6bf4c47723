// Lamina: one assembly jar with Caffeine shaded in; Spark and what it ships are provided.
val sparkVersion = "4.0.4"

ThisBuild / scalaVersion := "2.13.16"
ThisBuild / organization := "io.lamina"
ThisBuild / version := "0.1.0"

lazy val root = (project in file("."))
  .settings(
    name := "lamina",
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / javaSource := baseDirectory.value / "jvm" / "src" / "main" / "java",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Test / javaSource := baseDirectory.value / "jvm" / "src" / "test" / "java",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    scalacOptions ++= Seq("-deprecation", "-feature", "-release", "17"),
    javacOptions ++= Seq("--release", "17"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      // The aggregate functions hll_sketch and theta_sketch read and write Apache DataSketches sketches:
      // the version Spark ships (Paimon 1.4 bundles 4.2.0; the serialized sketches are the same).
      "org.apache.datasketches" % "datasketches-java" % "6.1.1" % Provided,
      "com.github.ben-manes.caffeine" % "caffeine" % "3.1.8",
      // JDBC metastore drivers (metastore=jdbc): in the assembly so `uri=jdbc:sqlite:...` and
      // `jdbc:postgresql://...` work with nothing else on the class path.
      "org.xerial" % "sqlite-jdbc" % "3.54.1.0",
      "org.postgresql" % "postgresql" % "42.7.14",
      // The Hive metastore client (metastore=hive): the Hive 2.3 jars Spark's distribution ships, so
      // provided, and only their classes (Spark supplies what they depend on at run time).
      "org.apache.hive" % "hive-metastore" % "2.3.10" % Provided intransitive (),
      "org.apache.hive" % "hive-common" % "2.3.10" % Provided intransitive (),
      "org.apache.thrift" % "libthrift" % "0.16.0" % Provided intransitive (),
      // S3 (s3:// and s3a:// warehouses): Hadoop's S3A connector, for Spark 4.0's Hadoop 3.4.1, and the
      // AWS SDK's S3 client it holds, which sends the conditional PUT of a commit. Provided: users add
      // hadoop-aws (it brings the SDK) as docs/storage.md says; compiled against the SDK's S3 module.
      "org.apache.hadoop" % "hadoop-aws" % "3.4.1" % Provided intransitive (),
      ("software.amazon.awssdk" % "s3" % "2.24.6" % Provided)
        .exclude("software.amazon.awssdk", "netty-nio-client")
        .exclude("software.amazon.awssdk", "apache-client"),
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    Test / fork := true,
    Test / javaOptions ++= Seq(
      "-Xmx3g",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED"
    ),
    Test / parallelExecution := false,
    assembly / assemblyJarName := "lamina.jar",
    assembly / test := {},
    assembly / assemblyOption ~= (_.withIncludeScala(false)),
    assembly / assemblyShadeRules := Seq(
      ShadeRule.rename("com.github.benmanes.caffeine.**" -> "lamina.shaded.caffeine.@1").inAll,
      ShadeRule.rename("com.google.errorprone.**" -> "lamina.shaded.errorprone.@1").inAll,
      ShadeRule.rename("org.checkerframework.**" -> "lamina.shaded.checkerframework.@1").inAll
    ),
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "MANIFEST.MF") => MergeStrategy.discard
      case PathList("META-INF", "versions", _*) => MergeStrategy.first
      case PathList("META-INF", xs @ _*) if xs.lastOption.exists(_.endsWith(".SF")) => MergeStrategy.discard
      case PathList("module-info.class") => MergeStrategy.discard
      case x => MergeStrategy.defaultMergeStrategy(x)
    }
  )

// The JVM benchmarks (`make bench`), apart from the tests so that `make test` compiles and runs none of
// them: jvm/src/bench/scala, on the engine's classes with Spark on the class path.
lazy val bench = (project in file("jvm/bench"))
  .dependsOn(root)
  .settings(
    name := "lamina-bench",
    Compile / scalaSource := (ThisBuild / baseDirectory).value / "jvm" / "src" / "bench" / "scala",
    scalacOptions ++= Seq("-deprecation", "-feature", "-release", "17"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion,
      // Baseline of the lookup benchmark only (LookupBench).
      "org.rocksdb" % "rocksdbjni" % "9.8.4"
    ),
    run / fork := true,
    run / baseDirectory := (ThisBuild / baseDirectory).value,
    run / javaOptions ++= Seq(
      "-Xmx12g",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED"
    )
  )
