package lamina.table.lifecycle

import org.apache.hadoop.fs.Path

import lamina.table.FileStoreTable
import lamina.table.branch.BranchManager

/** The files the other branches of a table hold, which expiring, untagging or rolling back one
 *  branch must never delete: branches share the table's data files and manifests (a branch made from
 *  a tag starts at a copy of that tag's snapshot), so a file one branch drops may be live on another.
 *  For each other branch (main included, when `table` is a branch): the data files live at its
 *  earliest snapshot and at its tags, those its later snapshots add, their changelog files, the files
 *  of its kept changelogs, and the
 *  metadata files of all its snapshots and tags. A file is live over one contiguous span of a branch's
 *  snapshots, so the earliest snapshot and the later additions cover every snapshot of the branch.
 *  Metadata is read leniently (what a crashed clean-up of that branch already removed is not kept). */
final case class OtherBranches(data: Set[Path], metadata: Set[Path]) {
  def holds(p: Path): Boolean = data.contains(p) || metadata.contains(p)
}

object OtherBranches {
  val None: OtherBranches = OtherBranches(Set.empty, Set.empty)

  def of(table: FileStoreTable): OtherBranches = {
    val branches = (BranchManager.Main +: table.branchManager.names()).filterNot(_ == table.branch)
    if (branches.isEmpty) return None
    val others = branches.map(table.onBranch)
    val held = others.map { other =>
      val refs = new FileReferences(other)
      val snapshots = other.snapshotManager.all()
      val tagged = other.snapshotManager.tags.all().map(_._2.snapshot)
      val data = snapshots.headOption.toSeq.flatMap(refs.liveDataFiles) ++
        snapshots.drop(1).flatMap(s => refs.deltaEntries(s).getOrElse(Seq.empty).filter(_.isAdd).flatMap(refs.dataPaths)) ++
        tagged.flatMap(refs.liveDataFiles) ++ (snapshots ++ tagged).flatMap(refs.changelogFiles)
      val metadata = (snapshots ++ tagged).flatMap(refs.metadataFiles(_, strict = false))
      // a branch's kept changelogs: their data and metadata files, held alike
      OtherBranches(data.toSet ++ refs.keptChangelogFiles(strict = false), metadata.toSet)
    }
    OtherBranches(held.flatMap(_.data).toSet, held.flatMap(_.metadata).toSet)
  }
}
