
empty