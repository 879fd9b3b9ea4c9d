// placeholder until lake lands
