import AppPages
print(try await openPage())
