// placeholder until contract lands
