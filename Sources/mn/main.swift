import Commands

print("mn")
