; torchvision's video datasets: they read every video's timestamps through a DataLoader of
; their own, built and iterated before the constructor returns. One pattern for the family:
; each pattern costs the catalogue's compilation, at every start, about as much as the others.
;
; torchvision 0.20.1, torchvision/datasets/video_utils.py: VideoClips.__init__(video_paths,
; clip_length_in_frames=16, frames_between_clips=1, frame_rate=None,
; _precomputed_metadata=None, num_workers=0, ...) calls _compute_frame_pts() when no
; metadata is given, which iterates DataLoader(_VideoTimestampsDataset(video_paths),
; batch_size=16, num_workers=self.num_workers, collate_fn=_collate_fn). Given metadata, it
; builds no loader.
; ucf101.py, hmdb51.py: UCF101 and HMDB51.__init__(root, annotation_path, frames_per_clip,
; step_between_clips=1, frame_rate=None, fold=1, train=True, transform=None,
; _precomputed_metadata=None, num_workers=1, ...); kinetics.py: Kinetics.__init__(root,
; frames_per_clip, num_classes="400", split="train", frame_rate=None, step_between_clips=1,
; transform=None, extensions=("avi", "mp4"), download=False, num_download_workers=1,
; num_workers=1, _precomputed_metadata=None, ...): each builds VideoClips(...,
; _precomputed_metadata, num_workers=num_workers). Their positions differ, so only the
; keyword is read; the default (0 or 1) is left unknown.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torchvision.datasets.video_utils.VideoClips" "torchvision.datasets.UCF101" "torchvision.datasets.ucf101.UCF101" "torchvision.datasets.HMDB51" "torchvision.datasets.hmdb51.HMDB51" "torchvision.datasets.Kinetics" "torchvision.datasets.kinetics.Kinetics")
  (#not-match? @loader "_precomputed_metadata")
  (#set! dl.entry "torchvision.datasets.video_utils.VideoClips")
  (#set! dl.kind "factory")
  (#set! dl.positional "_")
  (#set! dl.keywords "num_workers")
  (#set! dl.default.num_workers "?")
  (#set! dl.default.batch_size "16")
  (#set! dl.default.collate_fn "?")
  (#set! dl.iterates "true"))
