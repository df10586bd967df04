; transformers (huggingface/transformers at 00349ae, src/transformers/training_args.py):
; the TrainingArguments dataclass (first field output_dir) holds the DataLoader settings the
; Trainer uses for every loader it builds: dataloader_num_workers=0,
; dataloader_pin_memory=True, dataloader_persistent_workers=False,
; dataloader_prefetch_factor=None, dataloader_drop_last=False. The Trainer passes them as
; num_workers, pin_memory, persistent_workers and prefetch_factor, and never a start method.
; Seq2SeqTrainingArguments is a subclass with the same fields.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "transformers.TrainingArguments" "transformers.training_args.TrainingArguments"
    "transformers.Seq2SeqTrainingArguments" "transformers.training_args_seq2seq.Seq2SeqTrainingArguments")
  (#set! dl.entry "transformers.TrainingArguments")
  (#set! dl.kind "factory")
  (#set! dl.positional "output_dir")
  (#set! dl.keywords "")
  (#set! dl.rename.dataloader_num_workers "num_workers")
  (#set! dl.rename.dataloader_pin_memory "pin_memory")
  (#set! dl.rename.dataloader_persistent_workers "persistent_workers")
  (#set! dl.rename.dataloader_prefetch_factor "prefetch_factor")
  (#set! dl.rename.dataloader_drop_last "drop_last")
  (#set! dl.default.pin_memory "True")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.worker_init_fn "?"))

; The Trainer (and Seq2SeqTrainer, a subclass) builds its loaders in get_train_dataloader,
; get_eval_dataloader and get_test_dataloader from the TrainingArguments it is given
; (`Trainer(model=None, args=None, data_collator=None, train_dataset=None, ...)`): each
; DataLoader gets `num_workers=self.args.dataloader_num_workers` and the other fields the
; entry above renames. It is a loader here when those fields can be read: arguments
; `HfArgumentParser` parses from the command line; a `TrainingArguments(...)` written out is
; the loader above. A project subclass that defines its own get_train_dataloader builds its
; own loader.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "transformers.Trainer" "transformers.trainer.Trainer"
    "transformers.Seq2SeqTrainer" "transformers.trainer_seq2seq.Seq2SeqTrainer")
  (#set! dl.entry "transformers.Trainer")
  (#set! dl.kind "class")
  (#set! dl.positional "model args data_collator train_dataset")
  (#set! dl.keywords "")
  (#set! dl.rename.data_collator "collate_fn")
  (#set! dl.rename.train_dataset "dataset")
  (#set! dl.settings "transformers.TrainingArguments")
  (#set! dl.settings.keyword "args")
  (#set! dl.settings.position "1")
  (#set! dl.overridden "get_train_dataloader")
  (#set! dl.starts "train evaluate predict")
  (#set! dl.also "HfArgumentParser")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.worker_init_fn "?"))
