package lamina.io

import java.io.IOException
import java.util.Arrays

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.fs.s3a.S3AFileSystem
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.exception.SdkException
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.services.s3.S3Client
import software.amazon.awssdk.services.s3.model.{GetObjectRequest, NoSuchKeyException, PutObjectRequest, S3Exception}

/** Put-if-absent on S3: a PUT with `If-None-Match: *`, sent with the AWS SDK (v2) client that Hadoop's
 *  S3A connector holds, because S3A in Hadoop 3.4.1 (Spark 4.0's) has no conditional create. The header
 *  is set on the request, so any SDK 2.x that S3A ships with works.
 *
 *  An answer that is not a plain yes or no is settled by reading the object back: a `412` can answer a
 *  retry of a PUT that the store already took, a timeout or `5xx` can follow a PUT that landed, and a
 *  `409` says another conditional PUT of the key is under way (possibly this one's earlier attempt).
 *  The object holding exactly these bytes means this call created it; other bytes mean another
 *  writer did; no object means nothing landed, and the PUT is sent again (a late arrival of an earlier
 *  attempt then meets `If-None-Match` like any other writer). Loaded only where S3A is in use. */
object S3ConditionalCreate {
  private val Attempts = 4

  /** True when this call created `path` with `bytes`, false when another writer's object is there;
   *  an IOException when it cannot tell (the store kept failing). */
  def create(fs: FileSystem, path: Path, bytes: Array[Byte]): Boolean = {
    val s3a = fs.asInstanceOf[S3AFileSystem]
    val client = s3a.getS3AInternals.getAmazonS3Client("lamina conditional create")
    val bucket = s3a.getBucket
    val key = s3a.pathToKey(path)
    val put = PutObjectRequest.builder().bucket(bucket).key(key).contentLength(bytes.length.toLong)
      .overrideConfiguration(AwsRequestOverrideConfiguration.builder().putHeader("If-None-Match", "*").build())
      .build()
    var failure: Throwable = null
    var attempt = 0
    while (attempt < Attempts) {
      attempt += 1
      val answered =
        try { client.putObject(put, RequestBody.fromBytes(bytes)); Some(true) }
        catch {
          case e: S3Exception if e.statusCode == 412 => failure = e; None
          case e: S3Exception if e.statusCode == 409 || e.statusCode >= 500 => failure = e; None
          case e: S3Exception => throw new IOException(s"S3 refused to create $path: ${e.getMessage}", e)
          case e: SdkException => failure = e; None
        }
      if (answered.isDefined) return true
      holder(client, bucket, key) match {
        case Right(Some(existing)) => return Arrays.equals(existing, bytes)
        case Right(None) => if (attempt < Attempts) Thread.sleep(50L * attempt) // nothing landed: send it again
        case Left(e) => failure = e
      }
    }
    throw new IOException(s"Could not tell whether $path was created: S3 kept failing ($Attempts attempts); " +
        s"the last failure: ${failure.getMessage}", failure)
  }

  /** The bytes of the object, None when there is none; Left when the store did not answer. */
  private def holder(client: S3Client, bucket: String, key: String): Either[Throwable, Option[Array[Byte]]] =
    try Right(Some(client.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key).build()).asByteArray()))
    catch {
      case _: NoSuchKeyException => Right(None)
      case e: S3Exception if e.statusCode == 404 => Right(None)
      case e: SdkException => Left(e)
    }
}
