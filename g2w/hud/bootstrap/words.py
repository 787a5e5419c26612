"""Word lists for procedural UI text (all invented), so drawn text looks like game UI text."""

PLACES = (
    "Ashen Ridge",
    "Old Mill",
    "Harbor",
    "Citadel",
    "Sunken Vault",
    "Outpost 7",
    "Pine Hollow",
    "Iron Gate",
    "Market",
    "Relay Tower",
    "Dust Flats",
    "North Camp",
)
PLAYERS = (
    "xNova",
    "PixelWolf",
    "Kestrel",
    "r0gue_42",
    "MapleFox",
    "Bishop",
    "ZeroG",
    "Tundra",
    "Lumen",
    "GhostByte",
    "Vex",
    "Orchid",
    "Hammer",
    "Sable",
    "Quill",
    "Brisk",
)
OBJECTIVES = (
    "Reach the relay tower",
    "Collect supply crates",
    "Defend the gate",
    "Find the lost courier",
    "Escort the convoy",
    "Disable the generators",
    "Talk to the blacksmith",
    "Clear the mine",
    "Capture point B",
    "Survive the night",
)
NOTICES = (
    "Item acquired",
    "Achievement unlocked",
    "Checkpoint reached",
    "New area discovered",
    "Low ammunition",
    "Level up!",
    "Quest updated",
    "Storm approaching",
    "Double XP active",
    "Connection restored",
    "Inventory full",
    "Skill point earned",
)
SUBTITLES = (
    "We have to move before the bridge falls.",
    "Did you hear that? Something is out there.",
    "Keep your head down and follow me.",
    "The signal came from the old tower.",
    "I never thought I'd see this place again.",
    "Hold this position until I call.",
    "Take what you need, but hurry.",
    "They know we're here.",
)
SPEAKERS = ("MARA", "Captain Reyes", "Old Tom", "Unknown", "Iris", "Commander")
CHAT = (
    "gg",
    "anyone got ammo?",
    "push mid",
    "lol nice",
    "wait for me",
    "rotate left",
    "need heals",
    "b site clear",
    "one more round?",
    "care, sniper top",
    "thx",
    "on my way",
)
ACTIONS = (
    "Open",
    "Pick up",
    "Talk",
    "Interact",
    "Loot",
    "Revive",
    "Climb",
    "Enter vehicle",
    "Read",
    "Search",
    "Use",
    "Hold to hack",
)
KEYS = ("E", "F", "X", "Q", "R", "A", "B", "Y", "G", "Space")
MENU_ITEMS = ("Resume", "Map", "Inventory", "Settings", "Quests", "Quit", "Skills", "Journal")
WEAPONS = ("AR-17", "Longbow", "Vector", "M4", "Shotgun", "Pistol", "Crossbow", "SMG", "Railgun")
CHANNELS = ("@NightRaid", "twitch.tv/pixelwolf", "GameHub", "RAVEN TV", "@speedrun_daily", "PLAYLAB")
BRANDS = ("NEXUS", "OVERDRIVE", "ARCADIA", "HEXAGON", "SKYFALL", "EMBER")
