; TorchGeo (microsoft/torchgeo 0.8.0.dev0 at 7ea0616, torchgeo/datamodules/geo.py): its
; Lightning data modules keep `num_workers` (default 0) and build every split's loader in
; `_dataloader_factory` as DataLoader(dataset, batch_size, shuffle=split == 'train' or a
; sampler, num_workers=self.num_workers, collate_fn=self.collate_fn,
; persistent_workers=self.num_workers > 0). The batch size, sampler and collate function depend
; on the split and the module, so they stay unknown; persistent_workers follows num_workers.

; The bases: BaseDataModule and NonGeoDataModule(dataset_class, batch_size=1, num_workers=0,
; **kwargs), GeoDataModule(dataset_class, batch_size=1, patch_size=64, length=None,
; num_workers=0, **kwargs). A project's own data module derives from one of them.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torchgeo.datamodules.BaseDataModule" "torchgeo.datamodules.geo.BaseDataModule"
    "torchgeo.datamodules.NonGeoDataModule" "torchgeo.datamodules.geo.NonGeoDataModule")
  (#set! dl.entry "torchgeo.datamodules.NonGeoDataModule")
  (#set! dl.kind "class")
  (#set! dl.positional "_ batch_size num_workers")
  (#set! dl.keywords "batch_size num_workers")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.batch_sampler "?")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.persistent_workers "?"))

((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torchgeo.datamodules.GeoDataModule" "torchgeo.datamodules.geo.GeoDataModule")
  (#set! dl.entry "torchgeo.datamodules.GeoDataModule")
  (#set! dl.kind "class")
  (#set! dl.positional "_ batch_size _ _ num_workers")
  (#set! dl.keywords "batch_size num_workers")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.batch_sampler "?")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.persistent_workers "?"))

; The data modules of each dataset (the 63 of torchgeo/datamodules/__init__.py besides the
; bases): each takes `num_workers` (default 0) by keyword and hands it to its base; their
; positional parameters differ, so only keywords are read.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torchgeo.datamodules.AgriFieldNetDataModule"
    "torchgeo.datamodules.agrifieldnet.AgriFieldNetDataModule"
    "torchgeo.datamodules.BigEarthNetDataModule"
    "torchgeo.datamodules.bigearthnet.BigEarthNetDataModule"
    "torchgeo.datamodules.BRIGHTDFC2025DataModule"
    "torchgeo.datamodules.bright.BRIGHTDFC2025DataModule" "torchgeo.datamodules.CaBuArDataModule"
    "torchgeo.datamodules.cabuar.CaBuArDataModule" "torchgeo.datamodules.CaFFeDataModule"
    "torchgeo.datamodules.caffe.CaFFeDataModule" "torchgeo.datamodules.ChaBuDDataModule"
    "torchgeo.datamodules.chabud.ChaBuDDataModule" "torchgeo.datamodules.ChesapeakeCVPRDataModule"
    "torchgeo.datamodules.chesapeake.ChesapeakeCVPRDataModule"
    "torchgeo.datamodules.COWCCountingDataModule"
    "torchgeo.datamodules.cowc.COWCCountingDataModule"
    "torchgeo.datamodules.TropicalCycloneDataModule"
    "torchgeo.datamodules.cyclone.TropicalCycloneDataModule"
    "torchgeo.datamodules.DeepGlobeLandCoverDataModule"
    "torchgeo.datamodules.deepglobelandcover.DeepGlobeLandCoverDataModule"
    "torchgeo.datamodules.DigitalTyphoonDataModule"
    "torchgeo.datamodules.digital_typhoon.DigitalTyphoonDataModule"
    "torchgeo.datamodules.ETCI2021DataModule" "torchgeo.datamodules.etci2021.ETCI2021DataModule"
    "torchgeo.datamodules.EuroSAT100DataModule" "torchgeo.datamodules.eurosat.EuroSAT100DataModule"
    "torchgeo.datamodules.EuroSATDataModule" "torchgeo.datamodules.eurosat.EuroSATDataModule"
    "torchgeo.datamodules.EuroSATSpatialDataModule"
    "torchgeo.datamodules.eurosat.EuroSATSpatialDataModule" "torchgeo.datamodules.FAIR1MDataModule"
    "torchgeo.datamodules.fair1m.FAIR1MDataModule" "torchgeo.datamodules.FireRiskDataModule"
    "torchgeo.datamodules.fire_risk.FireRiskDataModule"
    "torchgeo.datamodules.FieldsOfTheWorldDataModule"
    "torchgeo.datamodules.ftw.FieldsOfTheWorldDataModule" "torchgeo.datamodules.GeoNRWDataModule"
    "torchgeo.datamodules.geonrw.GeoNRWDataModule" "torchgeo.datamodules.GID15DataModule"
    "torchgeo.datamodules.gid15.GID15DataModule" "torchgeo.datamodules.HySpecNet11kDataModule"
    "torchgeo.datamodules.hyspecnet.HySpecNet11kDataModule"
    "torchgeo.datamodules.InriaAerialImageLabelingDataModule"
    "torchgeo.datamodules.inria.InriaAerialImageLabelingDataModule"
    "torchgeo.datamodules.IOBenchDataModule" "torchgeo.datamodules.iobench.IOBenchDataModule"
    "torchgeo.datamodules.L7IrishDataModule" "torchgeo.datamodules.l7irish.L7IrishDataModule"
    "torchgeo.datamodules.L8BiomeDataModule" "torchgeo.datamodules.l8biome.L8BiomeDataModule"
    "torchgeo.datamodules.LandCoverAI100DataModule"
    "torchgeo.datamodules.landcoverai.LandCoverAI100DataModule"
    "torchgeo.datamodules.LandCoverAIDataModule"
    "torchgeo.datamodules.landcoverai.LandCoverAIDataModule"
    "torchgeo.datamodules.LEVIRCDDataModule" "torchgeo.datamodules.levircd.LEVIRCDDataModule"
    "torchgeo.datamodules.LEVIRCDPlusDataModule"
    "torchgeo.datamodules.levircd.LEVIRCDPlusDataModule" "torchgeo.datamodules.LoveDADataModule"
    "torchgeo.datamodules.loveda.LoveDADataModule" "torchgeo.datamodules.MMFloodDataModule"
    "torchgeo.datamodules.mmflood.MMFloodDataModule"
    "torchgeo.datamodules.NAIPChesapeakeDataModule"
    "torchgeo.datamodules.naip.NAIPChesapeakeDataModule"
    "torchgeo.datamodules.NASAMarineDebrisDataModule"
    "torchgeo.datamodules.nasa_marine_debris.NASAMarineDebrisDataModule"
    "torchgeo.datamodules.OSCDDataModule" "torchgeo.datamodules.oscd.OSCDDataModule"
    "torchgeo.datamodules.PatternNetDataModule"
    "torchgeo.datamodules.patternnet.PatternNetDataModule"
    "torchgeo.datamodules.Potsdam2DDataModule" "torchgeo.datamodules.potsdam.Potsdam2DDataModule"
    "torchgeo.datamodules.QuakeSetDataModule" "torchgeo.datamodules.quakeset.QuakeSetDataModule"
    "torchgeo.datamodules.ReforesTreeDataModule"
    "torchgeo.datamodules.reforestree.ReforesTreeDataModule"
    "torchgeo.datamodules.RESISC45DataModule" "torchgeo.datamodules.resisc45.RESISC45DataModule"
    "torchgeo.datamodules.SeasonalContrastS2DataModule"
    "torchgeo.datamodules.seco.SeasonalContrastS2DataModule"
    "torchgeo.datamodules.SEN12MSDataModule" "torchgeo.datamodules.sen12ms.SEN12MSDataModule"
    "torchgeo.datamodules.Sentinel2CDLDataModule"
    "torchgeo.datamodules.sentinel2_cdl.Sentinel2CDLDataModule"
    "torchgeo.datamodules.Sentinel2EuroCropsDataModule"
    "torchgeo.datamodules.sentinel2_eurocrops.Sentinel2EuroCropsDataModule"
    "torchgeo.datamodules.Sentinel2NCCMDataModule"
    "torchgeo.datamodules.sentinel2_nccm.Sentinel2NCCMDataModule"
    "torchgeo.datamodules.Sentinel2SouthAmericaSoybeanDataModule"
    "torchgeo.datamodules.sentinel2_south_america_soybean.Sentinel2SouthAmericaSoybeanDataModule"
    "torchgeo.datamodules.SKIPPDDataModule" "torchgeo.datamodules.skippd.SKIPPDDataModule"
    "torchgeo.datamodules.So2SatDataModule" "torchgeo.datamodules.so2sat.So2SatDataModule"
    "torchgeo.datamodules.SolarPlantsBrazilDataModule"
    "torchgeo.datamodules.solar_plants_brazil.SolarPlantsBrazilDataModule"
    "torchgeo.datamodules.SouthAfricaCropTypeDataModule"
    "torchgeo.datamodules.southafricacroptype.SouthAfricaCropTypeDataModule"
    "torchgeo.datamodules.SpaceNet1DataModule" "torchgeo.datamodules.spacenet.SpaceNet1DataModule"
    "torchgeo.datamodules.SpaceNet6DataModule" "torchgeo.datamodules.spacenet.SpaceNet6DataModule"
    "torchgeo.datamodules.SpaceNetBaseDataModule"
    "torchgeo.datamodules.spacenet.SpaceNetBaseDataModule" "torchgeo.datamodules.SSL4EOLDataModule"
    "torchgeo.datamodules.ssl4eo.SSL4EOLDataModule" "torchgeo.datamodules.SSL4EOS12DataModule"
    "torchgeo.datamodules.ssl4eo.SSL4EOS12DataModule"
    "torchgeo.datamodules.SSL4EOLBenchmarkDataModule"
    "torchgeo.datamodules.ssl4eo_benchmark.SSL4EOLBenchmarkDataModule"
    "torchgeo.datamodules.SubstationDataModule"
    "torchgeo.datamodules.substation.SubstationDataModule"
    "torchgeo.datamodules.SustainBenchCropYieldDataModule"
    "torchgeo.datamodules.sustainbench_crop_yield.SustainBenchCropYieldDataModule"
    "torchgeo.datamodules.TreeSatAIDataModule" "torchgeo.datamodules.treesatai.TreeSatAIDataModule"
    "torchgeo.datamodules.UCMercedDataModule" "torchgeo.datamodules.ucmerced.UCMercedDataModule"
    "torchgeo.datamodules.USAVarsDataModule" "torchgeo.datamodules.usavars.USAVarsDataModule"
    "torchgeo.datamodules.Vaihingen2DDataModule"
    "torchgeo.datamodules.vaihingen.Vaihingen2DDataModule" "torchgeo.datamodules.VHR10DataModule"
    "torchgeo.datamodules.vhr10.VHR10DataModule" "torchgeo.datamodules.XView2DataModule"
    "torchgeo.datamodules.xview.XView2DataModule")
  (#set! dl.entry "torchgeo.datamodules")
  (#set! dl.kind "class")
  (#set! dl.positional "")
  (#set! dl.keywords "num_workers")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.batch_sampler "?")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.persistent_workers "?"))
