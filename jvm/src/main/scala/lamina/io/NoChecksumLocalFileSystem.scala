package lamina.io

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.LocalFileSystem

/** Hadoop's local file system without `.crc` side files: none written, none checked. A
 *  [[LocalFileSystem]] still, so that what asks for "the local file system" (S3A's upload buffers
 *  through `FileSystem.getLocal`) gets one; the raw file system in its place would not cast. */
class NoChecksumLocalFileSystem extends LocalFileSystem {
  override def initialize(name: URI, conf: Configuration): Unit = {
    super.initialize(name, conf)
    setWriteChecksum(false)
    setVerifyChecksum(false)
  }
}
