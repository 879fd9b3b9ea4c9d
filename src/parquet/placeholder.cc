// placeholder until parquet lands
