; TorchIO (TorchIO-project/torchio). Its loaders are DataLoader subclasses that set their own
; collate function and pass every other keyword to torch's DataLoader. `tio.Queue` is a
; dataset (of patches), not a loader.
;
; 0.20 to 1.2.1 (v1.2.1, src/torchio/data/loader.py), exported as torchio.SubjectsLoader and
; torchio.data.SubjectsLoader:
; class SubjectsLoader(DataLoader):
;     def __init__(self, dataset, collate_fn=None, **kwargs):
;         super().__init__(dataset=dataset, collate_fn=collate_fn, **kwargs)
; 2.0 (v2.0.0a2, src/torchio/loader.py) keeps `SubjectsLoader(dataset, **kwargs)`, adds
; ImagesLoader with the same signature and the alias StudiesLoader = SubjectsLoader.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torchio.SubjectsLoader" "torchio.data.SubjectsLoader" "torchio.data.loader.SubjectsLoader"
    "torchio.loader.SubjectsLoader" "torchio.StudiesLoader" "torchio.loader.StudiesLoader")
  (#set! dl.entry "torchio.SubjectsLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "dataset collate_fn")
  (#set! dl.keywords "all"))

; 2.0 (v2.0.0a2, src/torchio/loader.py):
; class ImagesLoader(DataLoader):
;     def __init__(self, dataset, **kwargs):
;         super().__init__(dataset, collate_fn=collate_images, **kwargs)
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torchio.ImagesLoader" "torchio.loader.ImagesLoader")
  (#set! dl.entry "torchio.ImagesLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "dataset")
  (#set! dl.keywords "all"))
