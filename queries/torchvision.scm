; torchvision's video datasets: they read every video's timestamps through a DataLoader of
; their own, built and iterated before the constructor returns.
;
; torchvision 0.20.1, torchvision/datasets/video_utils.py: VideoClips.__init__(video_paths,
; clip_length_in_frames=16, frames_between_clips=1, frame_rate=None,
; _precomputed_metadata=None, num_workers=0, ...) calls _compute_frame_pts() when no
; metadata is given, which iterates DataLoader(_VideoTimestampsDataset(video_paths),
; batch_size=16, num_workers=self.num_workers, collate_fn=_collate_fn). Given metadata, it
; builds no loader.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torchvision.datasets.video_utils.VideoClips")
  (#not-match? @loader "_precomputed_metadata")
  (#set! dl.entry "torchvision.datasets.video_utils.VideoClips")
  (#set! dl.kind "factory")
  (#set! dl.positional "_ _ _ _ _ num_workers")
  (#set! dl.keywords "num_workers")
  (#set! dl.default.batch_size "16")
  (#set! dl.default.collate_fn "?")
  (#set! dl.iterates "true"))

; torchvision 0.20.1, torchvision/datasets/ucf101.py and hmdb51.py: UCF101.__init__ and
; HMDB51.__init__(root, annotation_path, frames_per_clip, step_between_clips=1,
; frame_rate=None, fold=1, train=True, transform=None, _precomputed_metadata=None,
; num_workers=1, ...) build VideoClips(..., _precomputed_metadata, num_workers=num_workers).
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torchvision.datasets.UCF101" "torchvision.datasets.ucf101.UCF101" "torchvision.datasets.HMDB51" "torchvision.datasets.hmdb51.HMDB51")
  (#not-match? @loader "_precomputed_metadata")
  (#set! dl.entry "torchvision.datasets.UCF101")
  (#set! dl.kind "factory")
  (#set! dl.positional "_ _ _ _ _ _ _ _ _ num_workers")
  (#set! dl.keywords "num_workers")
  (#set! dl.default.num_workers "1")
  (#set! dl.default.batch_size "16")
  (#set! dl.default.collate_fn "?")
  (#set! dl.iterates "true"))

; torchvision 0.20.1, torchvision/datasets/kinetics.py: Kinetics.__init__(root,
; frames_per_clip, num_classes="400", split="train", frame_rate=None, step_between_clips=1,
; transform=None, extensions=("avi", "mp4"), download=False, num_download_workers=1,
; num_workers=1, _precomputed_metadata=None, ...) builds VideoClips(..., _precomputed_metadata,
; num_workers=num_workers).
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torchvision.datasets.Kinetics" "torchvision.datasets.kinetics.Kinetics")
  (#not-match? @loader "_precomputed_metadata")
  (#set! dl.entry "torchvision.datasets.Kinetics")
  (#set! dl.kind "factory")
  (#set! dl.positional "_ _ _ _ _ _ _ _ _ _ num_workers")
  (#set! dl.keywords "num_workers")
  (#set! dl.default.num_workers "1")
  (#set! dl.default.batch_size "16")
  (#set! dl.default.collate_fn "?")
  (#set! dl.iterates "true"))
