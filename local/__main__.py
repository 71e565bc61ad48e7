from .server import main

if __name__ == "__main__":  # worker processes (local.runtime) import this module too
    main()
