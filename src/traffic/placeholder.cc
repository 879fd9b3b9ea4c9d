// placeholder until traffic lands
