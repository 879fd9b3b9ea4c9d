// placeholder until batch lands
