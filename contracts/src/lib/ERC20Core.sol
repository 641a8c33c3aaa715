// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Minimal ERC-20 accounting without name()/symbol(), so that tokens may expose them with
/// either string or bytes32 return types. It has no constructor: state is set through
/// internal helpers, which lets the same code run behind a proxy (storage of the proxy).
abstract contract ERC20Core {
    mapping(address => uint256) internal _balances;
    mapping(address => mapping(address => uint256)) internal _allowances;
    uint256 internal _totalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function decimals() public view virtual returns (uint8) {
        return 18;
    }

    function totalSupply() public view virtual returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) public view virtual returns (uint256) {
        return _balances[account];
    }

    function allowance(address holder, address spender) public view virtual returns (uint256) {
        return _allowances[holder][spender];
    }

    function approve(address spender, uint256 amount) public virtual returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) public virtual returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) public virtual returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        // type(uint256).max is an infinite approval and is never decreased.
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "ERC20: insufficient allowance");
            unchecked {
                _allowances[from][msg.sender] = allowed - amount;
            }
        }
        _transfer(from, to, amount);
        return true;
    }

    function _approve(address holder, address spender, uint256 amount) internal virtual {
        require(holder != address(0) && spender != address(0), "ERC20: zero address");
        _allowances[holder][spender] = amount;
        emit Approval(holder, spender, amount);
    }

    /// Hook for token rules (fees, blacklists, limits). Overrides end with super._transfer
    /// or _move.
    function _transfer(address from, address to, uint256 amount) internal virtual {
        require(from != address(0) && to != address(0), "ERC20: zero address");
        _move(from, to, amount);
    }

    /// Raw balance move with its Transfer event; no rules applied.
    function _move(address from, address to, uint256 amount) internal {
        uint256 bal = _balances[from];
        require(bal >= amount, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balances[from] = bal - amount;
            _balances[to] += amount; // cannot overflow: sum of balances == totalSupply
        }
        emit Transfer(from, to, amount);
    }

    function _mint(address to, uint256 amount) internal virtual {
        require(to != address(0), "ERC20: mint to zero address");
        _totalSupply += amount;
        unchecked {
            _balances[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    function _burn(address from, uint256 amount) internal virtual {
        uint256 bal = _balances[from];
        require(bal >= amount, "ERC20: burn amount exceeds balance");
        unchecked {
            _balances[from] = bal - amount;
            _totalSupply -= amount;
        }
        emit Transfer(from, address(0), amount);
    }
}

/// ERC-20 with string name() and symbol().
abstract contract ERC20 is ERC20Core {
    string internal _name;
    string internal _symbol;

    function name() public view virtual returns (string memory) {
        return _name;
    }

    function symbol() public view virtual returns (string memory) {
        return _symbol;
    }

    function _setMetadata(string memory name_, string memory symbol_) internal {
        _name = name_;
        _symbol = symbol_;
    }
}
